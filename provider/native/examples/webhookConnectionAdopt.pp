config storyId string {
	description = "The story whose bot calls the backend: 24 characters"
}
config existingConnectionId string {
	description = "The id of a connection made in the dashboard"
}

// The first up adopts the existing connection instead of creating one, and updates it only
// where it differs from the program; later ups ignore adoptId.
resource supportWebhook "chatbot:index:WebhookConnection" {
	storyId = storyId
	name    = "Support"
	url     = "https://support.example.com/chatbot"
	adoptId = existingConnectionId
}
