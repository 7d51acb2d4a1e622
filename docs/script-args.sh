# docs/script-args.sh — the options docs/results.sh and docs/suite.sh share;
# sourced by them (not run on its own).
#
# parse_args NAME HELP_LINES ARGS...: sets force, only, jobs, render_only and
# train_only from --force, --only LIST, --jobs N, --render-only and
# --train-only; -h prints the lines
# HELP_LINES (e.g. 2,30) of the calling script's header and exits; anything
# else exits 2 naming the argument.
parse_args() {
	local name=$1 help=$2
	shift 2
	force=0
	only=""
	jobs=1
	render_only=0
	train_only=0
	while (($#)); do
		case $1 in
		--force) force=1 ;;
		--only)
			only=${2:?--only needs a list}
			shift
			;;
		--jobs)
			jobs=${2:?--jobs needs a number}
			shift
			;;
		--render-only) render_only=1 ;;
		--train-only) train_only=1 ;;
		-h | --help)
			sed -n "${help}p" "${BASH_SOURCE[1]}" | sed 's/^# \{0,1\}//'
			exit 0
			;;
		*)
			echo "$name: unknown argument $1 (see --help)" >&2
			exit 2
			;;
		esac
		shift
	done
}
