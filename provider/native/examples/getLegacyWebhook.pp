config legacyWebhookId string {
	description = "The id of a legacy webhook"
}

// No secret field unless includeSecrets is true.
legacyWebhook = invoke("chatbot:index:getLegacyWebhook", {
	id = legacyWebhookId
})

output legacyUrl {
	value = legacyWebhook.url
}
