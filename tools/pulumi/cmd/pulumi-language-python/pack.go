package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Pack builds a wheel of a Python package folder (a generated SDK, or an SDK's source distribution)
// into the destination (`pulumi package pack-sdk`, the conformance suite). The real host installs
// `build` into a virtual environment of its own and runs it; `pip wheel --no-deps` is the same
// PEP 517 build (build isolation included) with the pip that every Python has.
func (h *host) Pack(ctx context.Context, req *pulumirpc.PackRequest) (*pulumirpc.PackResponse, error) {
	python, err := exec.LookPath("python3")
	if err != nil {
		if python, err = exec.LookPath("python"); err != nil {
			return nil, fmt.Errorf("find python: %w", err)
		}
	}
	out, err := os.MkdirTemp("", "pulumi-python-pack")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(out)
	cmd := exec.CommandContext(ctx, python, "-m", "pip", "wheel", "--no-deps", "--quiet",
		"--wheel-dir", out, req.GetPackageDirectory())
	if text, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pip wheel: %w\n%s", err, text)
	}
	wheels, err := filepath.Glob(filepath.Join(out, "*.whl"))
	if err != nil || len(wheels) != 1 {
		return nil, fmt.Errorf("pip wheel made %d wheels, not one", len(wheels))
	}
	artifact := filepath.Join(req.GetDestinationDirectory(), filepath.Base(wheels[0]))
	text, err := os.ReadFile(wheels[0])
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(artifact, text, 0o644); err != nil { //nolint:gosec // a wheel others install
		return nil, err
	}
	return &pulumirpc.PackResponse{ArtifactPath: strings.TrimSpace(artifact)}, nil
}
