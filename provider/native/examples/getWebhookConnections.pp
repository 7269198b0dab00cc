config storyId string {
	description = "The story to list: 24 characters"
}

// What the list read holds: no secret field.
shopConnections = invoke("chatbot:index:getWebhookConnections", {
	storyId    = storyId
	namePrefix = "Orders"
})

output shopConnectionCount {
	value = length(shopConnections.items)
}
