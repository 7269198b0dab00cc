module github.com/pulumi-chatbot/pulumi-chatbot/tools/machosign

go 1.26.0

require github.com/blacktop/go-macho v1.1.296

require github.com/blacktop/go-dwarf v1.1.0 // indirect
