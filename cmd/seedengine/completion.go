package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

const completionUsage = `Usage: seedengine completion bash|zsh|fish

Print a shell completion script for seedengine: its commands, subcommands
and each command's flags, asked of the program itself as you type (so the
script never goes stale). Load it with, for example:

  bash   source <(seedengine completion bash)         # in ~/.bashrc
  zsh    source <(seedengine completion zsh)          # in ~/.zshrc, after compinit
  fish   seedengine completion fish | source          # in ~/.config/fish/config.fish

seedengine must be on PATH under that name.
`

// The scripts hand the words typed so far, the one under the cursor last,
// to "seedengine __complete", which prints one candidate per line.
var completionScripts = map[string]string{
	"bash": `# bash completion for seedengine (seedengine completion bash)
_seedengine() {
	local IFS=$'\n'
	COMPREPLY=($(seedengine __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _seedengine seedengine
`,
	"zsh": `#compdef seedengine
# zsh completion for seedengine (seedengine completion zsh)
_seedengine() {
	local -a candidates
	candidates=("${(@f)$(seedengine __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	if (( ${#candidates} )) && [[ -n ${candidates[1]} ]]; then
		compadd -a candidates
	else
		_files
	fi
}
compdef _seedengine seedengine
`,
	"fish": `# fish completion for seedengine (seedengine completion fish)
complete -c seedengine -a '(seedengine __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
`,
}

func runCompletion(args []string, stdout, stderr io.Writer) error {
	if len(args) == 1 {
		if script, ok := completionScripts[args[0]]; ok {
			_, err := io.WriteString(stdout, script)
			return err
		}
		if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
			_, err := io.WriteString(stdout, completionUsage)
			return err
		}
	}
	fmt.Fprint(stderr, completionUsage)
	return usageError{fmt.Errorf("completion: name one shell: bash, zsh or fish")}
}

// commandNames are the commands completed first; subcommandNames what
// follows one that has subcommands.
var (
	commandNames    = []string{"apikey", "completion", "extract", "help", "migrate", "serve", "upload", "version", "worker"}
	subcommandNames = map[string][]string{
		"apikey":     {"create", "list", "revoke"},
		"completion": {"bash", "fish", "zsh"},
	}
	// flagValues are the values of flags that take one of a few.
	flagValues = map[string][]string{
		"--log-format": {"json", "text"},
		"--log-level":  {"debug", "error", "info", "warn"},
		"--output":     {"json", "table"},
		"--scope":      {"admin", "read", "write"},
	}
	helpFlag = regexp.MustCompile(`(?m)^  (--[a-z0-9-]+)$`)
)

// runComplete prints the candidates for the last of words (the word under
// the cursor, maybe empty), given the ones before it: a command, a
// subcommand, a flag of the command (read from its own --help, so the
// list is the flags the command takes) or a flag's value. Nothing for
// anything else, so that the shell completes file names.
func runComplete(ctx context.Context, words []string, stdout io.Writer) error {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	var candidates []string
	switch {
	case len(before) == 0:
		candidates = commandNames
	case len(before) == 1 && subcommandNames[before[0]] != nil && !strings.HasPrefix(cur, "-"):
		candidates = subcommandNames[before[0]]
	case flagValues[before[len(before)-1]] != nil:
		candidates = flagValues[before[len(before)-1]]
	case strings.HasPrefix(cur, "-"):
		path := before[:1]
		if subcommandNames[before[0]] != nil && len(before) > 1 {
			path = before[:2]
		}
		var help bytes.Buffer
		if err := run(ctx, append(slices.Clone(path), "--help"), func(string) string { return "" }, &help, io.Discard); err != nil && help.Len() == 0 {
			return nil
		}
		for _, m := range helpFlag.FindAllStringSubmatch(help.String(), -1) {
			candidates = append(candidates, m[1])
		}
	}
	for _, c := range candidates {
		if strings.HasPrefix(c, cur) {
			fmt.Fprintln(stdout, c)
		}
	}
	return nil
}
