// Command machosign signs a macOS executable ad hoc, as Go's linker signs every darwin/arm64
// binary, and checks such a signature: macOS runs only validly signed code on arm64, and a
// Node.js single executable needs signing again after its application is injected.
//
//	machosign sign <file> <identifier>   replaces the file's signature with an ad hoc one
//	machosign verify <file>              prints what the signature holds, as JSON; exits 1
//	                                     when a page's hash in the CodeDirectory is not the page's
//
// The Mach-O is read and signed by github.com/blacktop/go-macho. scripts/plugin.js calls sign in
// `npm run release`; tests/cli/release.test.ts calls verify on the darwin archives.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"

	"github.com/blacktop/go-macho"
	"github.com/blacktop/go-macho/pkg/codesign"
	cstypes "github.com/blacktop/go-macho/pkg/codesign/types"
	mtypes "github.com/blacktop/go-macho/types"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 4 && os.Args[1] == "sign":
		err = sign(os.Args[2], os.Args[3])
	case len(os.Args) == 3 && os.Args[1] == "verify":
		err = verify(os.Args[2])
	default:
		fmt.Fprintln(os.Stderr, "usage: machosign sign <file> <identifier> | machosign verify <file>")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "machosign: %v\n", err)
		os.Exit(1)
	}
}

func sign(file, id string) error {
	original, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	f, err := macho.NewFile(bytes.NewReader(original))
	if err != nil {
		return err
	}
	defer f.Close()
	// Ad hoc, nothing of a signature the file had kept: no hardened runtime (its JIT would need
	// entitlements), no entitlements, no team, no special slots of the old signature.
	config := &codesign.Config{
		ID:              id,
		Flags:           cstypes.ADHOC,
		Entitlements:    []byte{},
		EntitlementsDER: []byte{},
		SpecialSlots:    []cstypes.SpecialSlot{},
	}
	// Apple's signer places the signature on a 16-byte boundary (as Go's linker leaves room for,
	// cmd/link/internal/ld/macho.go); postject's rewrite can leave the old one 8 bytes off, and
	// the library signs where the old signature began. The 8 bytes between are __LINKEDIT's,
	// covered by the page hashes like the rest.
	if cs := f.CodeSignature(); cs != nil && cs.Offset%16 != 0 {
		cs.Offset += 16 - cs.Offset%16
	}
	if err := f.CodeSign(config); err != nil {
		return err
	}
	var saved bytes.Buffer
	if err := f.SaveBuffer(&saved); err != nil {
		return err
	}
	// SaveBuffer writes the segments back to back, but postject's injected segment (NODE_SEA)
	// ends before the page where __LINKEDIT starts: so the file keeps its own bytes, and takes
	// from the library what signing changed, the header with the load commands (which the
	// signature covers) and __LINKEDIT (which holds it), the last segment.
	linkedit := f.Segment("__LINKEDIT")
	loadsEnd := uint64(mtypes.FileHeaderSize64) + uint64(f.SizeCommands)
	if linkedit == nil || linkedit.Filesz > uint64(saved.Len()) || linkedit.Offset > uint64(len(original)) {
		return fmt.Errorf("%s: no __LINKEDIT segment at the end", file)
	}
	out := append([]byte{}, saved.Bytes()[:loadsEnd]...)
	out = append(out, original[loadsEnd:linkedit.Offset]...)
	out = append(out, saved.Bytes()[uint64(saved.Len())-linkedit.Filesz:]...)
	return os.WriteFile(file, out, 0o755)
}

type report struct {
	CPU        string   `json:"cpu"`
	Identifier string   `json:"identifier"`
	Flags      string   `json:"flags"`
	TeamID     string   `json:"teamId"`
	HashType   string   `json:"hashType"`
	PageSize   int      `json:"pageSize"`
	CodeLimit  uint64   `json:"codeLimit"`
	Pages      int      `json:"pages"`
	Mismatched []int    `json:"mismatchedPages"`
	CMS        int      `json:"cmsSignatureBytes"`
	Segments   []string `json:"segments"`
	Sections   []string `json:"sections"`
}

func verify(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	f, err := macho.NewFile(bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer f.Close()
	cs := f.CodeSignature()
	if cs == nil || len(cs.CodeDirectories) == 0 {
		return fmt.Errorf("%s has no code signature", file)
	}
	cd := cs.CodeDirectories[0]
	r := report{
		CPU:        f.CPU.String(),
		Identifier: cd.ID,
		Flags:      cd.Header.Flags.String(),
		TeamID:     cd.TeamID,
		HashType:   cd.Header.HashType.String(),
		PageSize:   1 << cd.Header.PageSize,
		CodeLimit:  cd.CodeLimit,
		Pages:      len(cd.CodeSlots),
		Mismatched: []int{},
		CMS:        len(cs.CMSSignature),
	}
	for _, seg := range f.Segments() {
		r.Segments = append(r.Segments, seg.Name)
	}
	for _, sec := range f.Sections {
		r.Sections = append(r.Sections, sec.Seg+","+sec.Name)
	}
	if cd.Header.HashType != cstypes.HASHTYPE_SHA256 {
		return fmt.Errorf("hash type %s, not SHA-256", cd.Header.HashType)
	}
	// Each code slot is the hash of one page of the file up to the code limit (the last page may
	// be short): what the kernel checks as it maps each page.
	for i, slot := range cd.CodeSlots {
		start := uint64(i) * uint64(r.PageSize)
		end := min(start+uint64(r.PageSize), cd.CodeLimit, uint64(len(data)))
		sum := sha256.Sum256(data[start:end])
		if !bytes.Equal(sum[:len(slot.Hash)], slot.Hash) {
			r.Mismatched = append(r.Mismatched, i)
		}
	}
	if want := (cd.CodeLimit + uint64(r.PageSize) - 1) / uint64(r.PageSize); uint64(r.Pages) != want {
		return fmt.Errorf("%d code slots for a code limit of %d bytes (%d pages)", r.Pages, cd.CodeLimit, want)
	}
	out, _ := json.MarshalIndent(r, "", "  ")
	fmt.Println(string(out))
	if len(r.Mismatched) > 0 {
		return fmt.Errorf("%d of %d pages do not match their hashes", len(r.Mismatched), r.Pages)
	}
	return nil
}
