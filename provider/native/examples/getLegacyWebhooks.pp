// What the list read holds: no secret field.
legacyWebhooks = invoke("chatbot:index:getLegacyWebhooks", {
	namePrefix = "Orders"
})

output legacyWebhookCount {
	value = length(legacyWebhooks.items)
}
