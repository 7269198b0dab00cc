// Webhook connections of two ChatBot accounts, from Go, with every secret in stack config.
//
//	pulumi config set storyId 5f3c0d1e2a4b6c8d9e0f1a2b
//	pulumi config set backendUrl https://bot-backend.example.com
//	pulumi config set --secret webhookToken <token the backend checks>
//	pulumi config set --secret basicPassword <password of the support backend>
//	pulumi config set --secret chatbot:token <developer access token of the main account>
//	pulumi config set partnerStoryId 6a1b2c3d4e5f6a7b8c9d0e1f
//	pulumi config set --secret partnerToken <developer access token of the partner's account>
package main

import (
	"strings"

	"github.com/pulumi-chatbot/pulumi-chatbot/sdk/go/chatbot"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		// The story the main account's connections belong to: the 24-character id in the
		// ChatBot dashboard's address.
		storyID := pulumi.String(cfg.Require("storyId"))
		// Where the bot's backend runs, e.g. https://bot-backend.example.com
		backendURL := strings.TrimSuffix(cfg.Require("backendUrl"), "/")
		environment := cfg.Get("environment")
		if environment == "" {
			environment = "production"
		}

		// The main account, through the default provider: chatbot:token and chatbot:apiUrl.
		orders, err := chatbot.NewWebhookConnection(ctx, "orders", &chatbot.WebhookConnectionArgs{
			StoryId: storyID,
			Url:     pulumi.String(backendURL + "/chatbot/orders"),
			Token:   cfg.RequireSecret("webhookToken"),
			Headers: pulumi.StringMap{"X-Environment": pulumi.String(environment)},
		})
		if err != nil {
			return err
		}
		support, err := chatbot.NewWebhookConnection(ctx, "support", &chatbot.WebhookConnectionArgs{
			StoryId: storyID,
			Url:     pulumi.String(backendURL + "/chatbot/support"),
			Auth: &chatbot.BasicAuthArgs{
				Username: pulumi.String("chatbot"),
				Password: cfg.RequireSecret("basicPassword"),
			},
			// Tells the support backend which connection takes order questions; Pulumi creates
			// orders first, and the first preview shows this header as computed.
			Headers: pulumi.StringMap{
				"X-Environment":       pulumi.String(environment),
				"X-Orders-Connection": orders.ID().ToStringOutput(),
			},
		})
		if err != nil {
			return err
		}

		// A second account (a partner's workspace): its own token, through an explicit provider.
		// Its address defaults to the main one's default, https://api.chatbot.com.
		partnerArgs := &chatbot.ProviderArgs{Token: cfg.RequireSecret("partnerToken")}
		if apiURL := cfg.Get("partnerApiUrl"); apiURL != "" {
			partnerArgs.ApiUrl = pulumi.String(apiURL)
		}
		partner, err := chatbot.NewProvider(ctx, "partner", partnerArgs)
		if err != nil {
			return err
		}
		partnerOrders, err := chatbot.NewWebhookConnection(ctx, "partner-orders", &chatbot.WebhookConnectionArgs{
			StoryId: pulumi.String(cfg.Require("partnerStoryId")),
			Name:    pulumi.String("orders"),
			Url:     pulumi.String(backendURL + "/chatbot/partner/orders"),
			Token:   cfg.RequireSecret("webhookToken"),
		}, pulumi.Provider(partner))
		if err != nil {
			return err
		}

		ctx.Export("ordersConnectionId", orders.ID())
		ctx.Export("supportConnectionId", support.ID())
		ctx.Export("partnerConnectionId", partnerOrders.ID())
		ctx.Export("storyName", orders.Story.Name())
		return nil
	})
}
