package completion

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// NewCmd builds `retry completion bash|zsh|fish|powershell`, which writes
// cobra's completion scripts for root, as cobra's default command would,
// except that the bash script works without the bash-completion package:
// cobra's script calls two of its functions, _get_comp_words_by_ref and
// _filedir, and without them TAB prints "command not found". bashFallback
// defines stand-ins for both, only where the package did not.
func NewCmd(root *cobra.Command) *cobra.Command {
	c := &cobra.Command{
		Use:   "completion",
		Short: "Generate the autocompletion script for the specified shell",
		Long: `Generate the autocompletion script for retry for the specified shell:
source <(retry completion bash) in ~/.bashrc (the bash-completion package is
not needed), retry completion zsh > "${fpath[1]}/_retry",
retry completion fish > ~/.config/fish/completions/retry.fish.`,
		Args: cobra.NoArgs,
	}
	var noDesc bool
	shell := func(name string, gen func(w io.Writer, desc bool) error) *cobra.Command {
		s := &cobra.Command{
			Use:   name,
			Short: "Generate the autocompletion script for " + name,
			Args:  cobra.NoArgs,
			RunE:  func(c *cobra.Command, _ []string) error { return gen(c.OutOrStdout(), !noDesc) },
		}
		s.Flags().BoolVar(&noDesc, "no-descriptions", false, "disable completion descriptions")
		return s
	}
	c.AddCommand(
		shell("bash", func(w io.Writer, desc bool) error {
			if err := root.GenBashCompletionV2(w, desc); err != nil {
				return err
			}
			_, err := fmt.Fprint(w, bashFallback)
			return err
		}),
		shell("zsh", func(w io.Writer, desc bool) error {
			if desc {
				return root.GenZshCompletion(w)
			}
			return root.GenZshCompletionNoDesc(w)
		}),
		shell("fish", root.GenFishCompletion),
		shell("powershell", func(w io.Writer, desc bool) error {
			if desc {
				return root.GenPowerShellCompletionWithDesc(w)
			}
			return root.GenPowerShellCompletion(w)
		}),
	)
	return c
}

// bashFallback follows cobra's bash script. Its functions are looked up
// when TAB is pressed, so defining them after the script is enough.
const bashFallback = `
# Without the bash-completion package: stand-ins for the two functions of it
# that the script above calls. The line up to the cursor is split at blanks
# (retry's words have none), so --flag=value and host:port stay one word.
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
_get_comp_words_by_ref() {
    local _line=${COMP_LINE:0:COMP_POINT}
    local -a _ws
    read -r -a _ws <<<"$_line"
    if [[ ${#_ws[@]} -eq 0 || $_line == *[[:blank:]] ]]; then _ws+=(""); fi
    local _c=$((${#_ws[@]} - 1))
    while [[ $# -gt 0 ]]; do
        case $1 in
        -n | -i) shift ;;
        cur) cur=${_ws[_c]} ;;
        prev) if ((_c > 0)); then prev=${_ws[_c - 1]}; else prev=""; fi ;;
        words) words=("${_ws[@]}") ;;
        cword) cword=$_c ;;
        esac
        shift
    done
}
fi
if ! declare -F _filedir >/dev/null 2>&1; then
_filedir() {
    local IFS=$'\n' _ext=${1%|}
    if [[ $1 == -d ]]; then
        COMPREPLY=($(compgen -d -- "$cur"))
    elif [[ -n $_ext ]]; then
        local _e
        COMPREPLY=($(compgen -d -- "$cur"))
        for _e in ${_ext//|/$'\n'}; do COMPREPLY+=($(compgen -f -X "!*.$_e" -- "$cur")); done
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
    compopt -o filenames 2>/dev/null
}
fi
`
