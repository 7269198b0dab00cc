/**
 * Quickstart: two ChatBot webhook connections, declared next to each other, with every secret in
 * stack config.
 *
 *   pulumi config set storyId 5f3c0d1e2a4b6c8d9e0f1a2b
 *   pulumi config set backendUrl https://bot-backend.example.com
 *   pulumi config set --secret webhookToken <token the backend checks>
 *   pulumi config set --secret basicPassword <password of the support backend>
 *   pulumi config set --secret chatbot:token <ChatBot developer access token>
 */
import * as pulumi from "@pulumi/pulumi";
import * as chatbot from "pulumi-chatbot";

const cfg = new pulumi.Config();

/** The story both connections belong to: the 24-character id in the ChatBot dashboard's address. */
const storyId = cfg.require("storyId");
/** Where the bot's backend runs, e.g. https://bot-backend.example.com */
const backendUrl = cfg.require("backendUrl");
/** Tells the backend which deployment ChatBot is calling (a plain header). */
const environment = cfg.get("environment") ?? "production";
/** ChatBot sends it with every call to "orders"; the backend checks it. */
const webhookToken = cfg.requireSecret("webhookToken");
/** The support backend wants basic authorization. */
const basicPassword = cfg.requireSecret("basicPassword");

const orders = new chatbot.WebhookConnection("orders", {
    storyId,
    url: new URL("/chatbot/orders", backendUrl).toString(),
    token: webhookToken,
    headers: { "X-Environment": environment },
});

// "support" sits beside "orders": its address is derived from the one ChatBot stored for
// "orders", and it tells the support backend which connection takes order questions. During the
// first preview that id is not known yet; Pulumi shows the header as computed.
const support = new chatbot.WebhookConnection("support", {
    storyId,
    url: orders.url.apply((ordersUrl) => new URL("support", ordersUrl).toString()),
    auth: { username: "chatbot", password: basicPassword },
    headers: { "X-Environment": environment, "X-Orders-Connection": orders.id },
});

export const ordersConnectionId = orders.id;
export const supportConnectionId = support.id;
export const supportUrl = support.url;
