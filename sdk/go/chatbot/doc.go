// ChatBot (chatbot.com) webhook connections.
package chatbot
