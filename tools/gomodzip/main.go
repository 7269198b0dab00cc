// Command gomodzip writes a Go module's zip as a module proxy serves it (`<version>.zip`), with
// the module zip rules of golang.org/x/mod/zip, so `go get` through GOPROXY verifies it:
//
//	gomodzip <module path> <version> <module folder> <out.zip>
//
// scripts/go-module.js calls it for the SDK (sdk/, as git sees it) in `npm run release`.
package main

import (
	"fmt"
	"os"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: gomodzip <module path> <version> <module folder> <out.zip>")
		os.Exit(2)
	}
	version := module.Version{Path: os.Args[1], Version: os.Args[2]}
	out, err := os.Create(os.Args[4])
	if err == nil {
		err = zip.CreateFromDir(out, version, os.Args[3])
		if closeErr := out.Close(); err == nil {
			err = closeErr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gomodzip:", err)
		os.Exit(1)
	}
}
