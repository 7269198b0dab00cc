config partnerApiUrl string {
	description = "The second account's API address"
	default = "https://api.chatbot.com"
}
config partnerToken string {
	description = "The second account's developer access token (pulumi config set --secret)"
	secret = true
}
config partnerStoryId string {
	description = "A story of the second account"
}

// A second account: resources and lookups given this provider use its token.
resource partnerAccount "pulumi:providers:chatbot" {
	apiUrl = partnerApiUrl
	token  = partnerToken
}

resource partnerOrders "chatbot:index:WebhookConnection" {
	storyId = partnerStoryId
	name    = "Partner orders"
	url     = "https://backend.example.com/chatbot/partner"
	options {
		provider = partnerAccount
	}
}
