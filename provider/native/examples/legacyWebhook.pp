config webhookToken string {
	description = "The token the backend checks (pulumi config set --secret)"
	secret = true
}

// The older /webhooks API: every field updates in place; headers are sent in order.
resource legacyOrders "chatbot:index:LegacyWebhook" {
	name  = "Orders (legacy)"
	url   = "https://backend.example.com/chatbot/legacy"
	token = webhookToken
	headers = [{
		name  = "X-Environment"
		value = "production"
	}]
}

output legacyWebhookId {
	value = legacyOrders.id
}
