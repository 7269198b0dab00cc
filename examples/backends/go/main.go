// A ChatBot webhook backend on Go's standard library, checked against the webhook contract's JSON
// Schema (request.json, response.json from pulumi-chatbot) with santhosh-tekuri/jsonschema: it
// refuses a request that is not ChatBot's (400) and, before sending, an answer ChatBot would
// refuse (500).
//
// Settings, from the environment:
//
//	CHATBOT_SCHEMA_DIR  the folder holding request.json and response.json (required)
//	PORT                the port on 127.0.0.1 (default 8080; 0 picks a free one)
//	WEBHOOK_TOKEN       the connection's token: the verification request and every call must carry it
//	WEBHOOK_TOKENS      during a rotation, the tokens accepted as a JSON list, e.g. ["<next>", "<current>"]
//	                    (JSON, so a token may hold any character, commas too); with WEBHOOK_TOKEN, both count
//	BAD_ANSWER=1        answer with a message over ChatBot's 1024 characters, to see it refused
package main

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compile reads one schema file of the contract; the library's messages name the file.
func compile(dir, name string) *jsonschema.Schema {
	file, err := filepath.Abs(filepath.Join(dir, name))
	if err != nil {
		log.Fatal(err)
	}
	schema, err := jsonschema.NewCompiler().Compile(file)
	if err != nil {
		log.Fatalf("%s: %v", file, err)
	}
	return schema
}

// problem is the validator's verdict on value as one line, or "" when it is valid.
func problem(schema *jsonschema.Schema, value any) string {
	if err := schema.Validate(value); err != nil {
		// The library's message is a tree, one cause a line: one line for a log and an answer.
		return strings.Join(strings.Fields(err.Error()), " ")
	}
	return ""
}

// answer is what the bot says: replace it with your own. BAD_ANSWER shows the check refusing it.
func answer(call map[string]any) any {
	message := fmt.Sprintf("Hello, %v", call["userId"])
	if os.Getenv("BAD_ANSWER") == "1" {
		message = strings.Repeat("x", 1025)
	}
	return map[string]any{
		"responses":  []any{map[string]any{"type": "text", "message": message}},
		"attributes": map[string]any{"greeted": "yes"},
	}
}

// acceptedTokens is every token a call may carry, from WEBHOOK_TOKEN and WEBHOOK_TOKENS; nil: none
// is checked.
func acceptedTokens() [][]byte {
	var tokens [][]byte
	if token, ok := os.LookupEnv("WEBHOOK_TOKEN"); ok {
		tokens = append(tokens, []byte(token))
	}
	if raw, ok := os.LookupEnv("WEBHOOK_TOKENS"); ok {
		var listed []string
		err := json.Unmarshal([]byte(raw), &listed)
		for _, token := range listed {
			if token == "" {
				err = fmt.Errorf("an empty token")
			}
			tokens = append(tokens, []byte(token))
		}
		if err != nil || len(listed) == 0 {
			// Named, never shown: the value is a secret.
			log.Fatal(`WEBHOOK_TOKENS: must be a JSON list of non-empty strings, e.g. ["<next>", "<current>"]`)
		}
	}
	return tokens
}

func send(w http.ResponseWriter, status int, body any) {
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func main() {
	dir := os.Getenv("CHATBOT_SCHEMA_DIR")
	if dir == "" {
		log.Fatal("CHATBOT_SCHEMA_DIR: the folder holding request.json and response.json")
	}
	request, response := compile(dir, "request.json"), compile(dir, "response.json")
	tokens := acceptedTokens()
	tokenOK := func(r *http.Request) bool {
		if tokens == nil {
			return true
		}
		given := []byte(r.URL.Query().Get("token"))
		// Compared with every accepted token, none skipped, each in constant time: which one
		// matched does not show in the time taken.
		match := 0
		for _, token := range tokens {
			match |= subtle.ConstantTimeCompare(given, token)
		}
		return match == 1
	}

	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		query := r.URL.Query()
		switch {
		case r.Method == http.MethodGet && query.Has("challenge"):
			// ChatBot's verification request: the challenge back as the body, when the token is right.
			if !tokenOK(r) {
				send(w, http.StatusUnauthorized, map[string]string{"error": "unauthorized"})
				return
			}
			w.Header().Set("content-type", "text/plain; charset=utf-8")
			_, _ = io.WriteString(w, query.Get("challenge"))
			return
		case r.Method != http.MethodPost:
			send(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed: use POST"})
			return
		case !tokenOK(r):
			send(w, http.StatusUnauthorized, map[string]string{"error": "unauthorized"})
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var value any
		if err == nil {
			value, err = jsonschema.UnmarshalJSON(bytes.NewReader(body))
		}
		if err != nil {
			send(w, http.StatusBadRequest, map[string]string{"error": "request body is not valid JSON"})
			return
		}
		if refused := problem(request, value); refused != "" {
			send(w, http.StatusBadRequest, map[string]string{"error": "not ChatBot's request (request.json): " + refused})
			return
		}
		call, _ := value.(map[string]any)
		out := answer(call)
		// Validated as it will be sent: the JSON text, read back as the library reads JSON.
		text, _ := json.Marshal(out)
		sent, _ := jsonschema.UnmarshalJSON(bytes.NewReader(text))
		if refused := problem(response, sent); refused != "" {
			// ChatBot would fail the call anyway; a 500 says whose fault it is, here and in its log.
			message := "answer refused by response.json: " + refused
			log.Print(message)
			send(w, http.StatusInternalServerError, map[string]string{"error": message})
			return
		}
		w.Header().Set("content-type", "application/json")
		_, _ = w.Write(text)
	})

	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	listener, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on http://%s\n", listener.Addr())
	log.Fatal(http.Serve(listener, nil))
}
