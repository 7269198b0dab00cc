config storyId string {
	description = "The story whose bot calls the backend: 24 characters"
}
config backendUrl string {
	description = "The backend's address, e.g. https://backend.example.com/chatbot"
}
config webhookToken string {
	description = "The token the backend checks (pulumi config set --secret)"
	secret = true
}
config basicPassword string {
	description = "The basic-auth password the backend checks (pulumi config set --secret)"
	secret = true
}

// Changing storyId replaces the connection; any other change updates it in place.
// token, headers and auth are secret in state and in every output.
resource ordersWebhook "chatbot:index:WebhookConnection" {
	storyId = storyId
	name    = "Orders"
	url     = "${backendUrl}/orders"
	token   = webhookToken
	headers = {
		"X-Environment" = "production"
	}
	auth = {
		username = "chatbot"
		password = basicPassword
	}
}

output ordersConnectionId {
	value = ordersWebhook.id
}
output ordersStoryName {
	value = ordersWebhook.story.name
}
