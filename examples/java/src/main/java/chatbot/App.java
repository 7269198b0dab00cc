// Webhook connections of two ChatBot accounts, from Java, with every secret in stack config.
//
//   pulumi config set storyId 5f3c0d1e2a4b6c8d9e0f1a2b
//   pulumi config set backendUrl https://bot-backend.example.com
//   pulumi config set --secret webhookToken <token the backend checks>
//   pulumi config set --secret basicPassword <password of the support backend>
//   pulumi config set --secret chatbot:token <developer access token of the main account>
//   pulumi config set partnerStoryId 6a1b2c3d4e5f6a7b8c9d0e1f
//   pulumi config set --secret partnerToken <developer access token of the partner's account>
package chatbot;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.resources.CustomResourceOptions;
import com.pulumichatbot.chatbot.Provider;
import com.pulumichatbot.chatbot.ProviderArgs;
import com.pulumichatbot.chatbot.WebhookConnection;
import com.pulumichatbot.chatbot.WebhookConnectionArgs;
import com.pulumichatbot.chatbot.inputs.BasicAuthArgs;
import com.pulumichatbot.chatbot.outputs.Story;
import java.util.Map;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    static void stack(Context ctx) {
        var config = ctx.config();
        // The story the main account's connections belong to: the 24-character id in the ChatBot
        // dashboard's address.
        var storyId = config.require("storyId");
        // Where the bot's backend runs, e.g. https://bot-backend.example.com
        var backendUrl = config.require("backendUrl").replaceAll("/+$", "");
        var environment = config.get("environment").orElse("production");

        // The main account, through the default provider: chatbot:token and chatbot:apiUrl.
        var orders = new WebhookConnection("orders", WebhookConnectionArgs.builder()
                .storyId(storyId)
                .url(backendUrl + "/chatbot/orders")
                .token(config.requireSecret("webhookToken"))
                .headers(Map.of("X-Environment", environment))
                .build());
        var support = new WebhookConnection("support", WebhookConnectionArgs.builder()
                .storyId(storyId)
                .url(backendUrl + "/chatbot/support")
                .auth(BasicAuthArgs.builder()
                        .username("chatbot")
                        .password(config.requireSecret("basicPassword"))
                        .build())
                // Tells the support backend which connection takes order questions; Pulumi creates
                // orders first, and the first preview shows this header as computed.
                .headers(orders.id().applyValue(id -> Map.of(
                        "X-Environment", environment,
                        "X-Orders-Connection", id)))
                .build());

        // A second account (a partner's workspace): its own token, through an explicit provider.
        // Its address defaults to the main one's default, https://api.chatbot.com.
        var partnerArgs = ProviderArgs.builder().token(config.requireSecret("partnerToken"));
        config.get("partnerApiUrl").ifPresent(partnerArgs::apiUrl);
        var partner = new Provider("partner", partnerArgs.build());
        var partnerOrders = new WebhookConnection("partner-orders", WebhookConnectionArgs.builder()
                .storyId(config.require("partnerStoryId"))
                .name("orders")
                .url(backendUrl + "/chatbot/partner/orders")
                .token(config.requireSecret("webhookToken"))
                .build(), CustomResourceOptions.builder().provider(partner).build());

        ctx.export("ordersConnectionId", orders.id());
        ctx.export("supportConnectionId", support.id());
        ctx.export("partnerConnectionId", partnerOrders.id());
        ctx.export("storyName", orders.story().applyValue(Story::name));
    }
}
