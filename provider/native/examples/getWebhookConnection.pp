config storyId string {
	description = "The story to look in: 24 characters"
}

// By name in a story: no match, or more than one, fails the preview naming what was looked for.
// Without includeSecrets the result holds no secret field.
ordersByName = invoke("chatbot:index:getWebhookConnection", {
	name    = "Orders"
	storyId = storyId
})

// By id, with token, headers and auth: marked secret, so the whole result is secret.
ordersWithSecrets = invoke("chatbot:index:getWebhookConnection", {
	id             = ordersByName.id
	includeSecrets = true
})

output foundUrl {
	value = ordersByName.url
}
output foundToken {
	value = ordersWithSecrets.token
}
