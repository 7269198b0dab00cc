"""ChatBot webhook connections from Python, with the SDK generated from the native plugin's schema.

Two connections in the stack's account (`chatbot:token`), every secret from stack config, and one
in a second account through an explicit provider:

    pulumi config set storyId 5f3c0d1e2a4b6c8d9e0f1a2b
    pulumi config set backendUrl https://bot-backend.example.com
    pulumi config set --secret webhookToken <token the backend checks>
    pulumi config set --secret basicPassword <password of the support backend>
    pulumi config set --secret chatbot:token <developer access token>
    pulumi config set partner:storyId <a story of the second account>
    pulumi config set --secret partner:token <the second account's developer access token>
"""

import pulumi
import pulumi_chatbot as chatbot

config = pulumi.Config()
# The story both connections belong to: the 24-character id in the ChatBot dashboard's address.
story_id = config.require("storyId")
# Where the bot's backend runs, e.g. https://bot-backend.example.com
backend_url = config.require("backendUrl").rstrip("/")
# Tells the backend which deployment ChatBot is calling (a plain header).
environment = config.get("environment") or "production"

orders = chatbot.WebhookConnection(
    "orders",
    story_id=story_id,
    url=f"{backend_url}/chatbot/orders",
    token=config.require_secret("webhookToken"),
    headers={"X-Environment": environment},
)

# "support" is derived from what ChatBot stored for "orders": its address, and a header naming the
# orders connection (unknown until orders exists, so the first preview shows it as computed).
support = chatbot.WebhookConnection(
    "support",
    story_id=story_id,
    url=orders.url.apply(lambda url: url.rsplit("/", 1)[0] + "/support"),
    auth=chatbot.BasicAuthArgs(username="chatbot", password=config.require_secret("basicPassword")),
    headers={"X-Environment": environment, "X-Orders-Connection": orders.id},
)

# A second ChatBot account: its own developer access token (and API address, where it is not
# api.chatbot.com), given to an explicit provider; only resources given that provider go there.
partner_config = pulumi.Config("partner")
partner = chatbot.Provider(
    "partner",
    token=partner_config.require_secret("token"),
    api_url=partner_config.get("apiUrl"),
)
partner_orders = chatbot.WebhookConnection(
    "partner-orders",
    story_id=partner_config.require("storyId"),
    url=f"{backend_url}/chatbot/partner-orders",
    token=config.require_secret("webhookToken"),
    opts=pulumi.ResourceOptions(provider=partner),
)

pulumi.export("ordersConnectionId", orders.id)
pulumi.export("supportUrl", support.url)
pulumi.export("partnerConnectionId", partner_orders.id)
pulumi.export("partnerStory", partner_orders.story.name)
