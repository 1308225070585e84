/**
 * `bankdata completion bash|zsh|fish`: prints a completion script made from commander's own
 * metadata (every command, sub-command, option, and the values an option or argument takes),
 * so it follows the program as commands are added. The script is static: a TAB runs no node.
 *
 * Values come from commander's `.choices()` where a command declares them, else from VALUES
 * by command path and flag (`export <dataset>`, `export --format`…). An option or argument
 * without known values falls back to file names. Install: docs/packaging.md "Shell completion".
 */
import { type Argument, type Command, type Option } from 'commander';
import { DATASETS, FORMATS, OFX_DIALECTS, STATUSES } from '../export';
import { UsageError } from './exit-codes';
import { HELP_DESCRIPTION, buildFullProgram } from './main';
import { printsOnStdout, readsNoConfig } from './command-needs';
import { commandNamed } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import { printData } from './stdout';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/**
 * Known values of the options and arguments that declare no choices, by command path (as
 * Node.path) and then by long flag or `<argument>`: each list is what that command's own check
 * accepts (test/cli/completion-values.test.ts runs every value through it). Keyed by command, so
 * no command inherits another's list by sharing a placeholder name; declared choices win.
 */
const VALUES: Record<string, Record<string, readonly string[]>> = {
  export: { '<dataset>': DATASETS, '--format': FORMATS, '--status': STATUSES, '--ofx-dialect': OFX_DIALECTS },
  emulator: { '--faults': ['none', 'light', 'heavy'], '--environment': ['sandbox', 'production'] },
  completion: { '<shell>': SHELLS },
};

/** One command's completion data; `path` is its command names joined by '/', '' for the root. */
interface Node {
  path: string;
  subcommands: string[];
  /** Each sub-command's description (fish shows it beside the name). */
  subcommandDescriptions: Map<string, string>;
  /** Each option of the command (its own and the inherited global ones), for fish. */
  optionList: Option[];
  options: string[];
  /** Options that take a value (the next word is that value). */
  valued: string[];
  optionValues: Map<string, readonly string[]>;
  argumentValues: (readonly string[] | null)[];
}

function optionValues(option: Option, owner: string): readonly string[] | null {
  return option.argChoices ?? VALUES[owner]?.[option.long ?? option.short ?? ''] ?? null;
}

function argumentValues(argument: Argument, owner: string): readonly string[] | null {
  return argument.argChoices ?? VALUES[owner]?.[`<${argument.name()}>`] ?? null;
}

export function completionNodes(program: Command): Node[] {
  const nodes: Node[] = [];
  // namesOnly: the words of `help COMMAND [SUBCOMMAND]`, the command tree's names alone.
  const walk = (command: Command, path: string, inherited: readonly Option[], namesOnly = false) => {
    // Program options are accepted after a sub-command too (commander's default).
    const options = namesOnly ? [...inherited] : [...command.options, ...inherited];
    const flags = (o: Option) => [o.long, o.short].filter((f): f is string => f !== undefined);
    const node: Node = {
      path,
      subcommands: command.commands.map((c) => c.name()),
      subcommandDescriptions: new Map(command.commands.map((c) => [c.name(), c.description()])),
      optionList: options,
      options: [...options.flatMap(flags), '--help'],
      valued: options.filter((o) => o.required || o.optional).flatMap(flags),
      optionValues: new Map(),
      argumentValues: namesOnly ? [] : command.registeredArguments.map((a) => argumentValues(a, path)),
    };
    for (const o of options) {
      // An inherited option is the root's (path '').
      const values = optionValues(o, command.options.includes(o) && !namesOnly ? path : '');
      if (values && (o.required || o.optional)) for (const f of flags(o)) node.optionValues.set(f, values);
    }
    nodes.push(node);
    // The root's --version belongs to the root alone.
    const passed = path === '' ? command.options.filter((o) => o.long !== '--version') : inherited;
    for (const sub of command.commands)
      walk(sub, path === '' ? sub.name() : `${path}/${sub.name()}`, passed, namesOnly);
  };
  walk(program, '', []);
  // `bankdata help COMMAND [SUBCOMMAND]` is a command of the first parse (src/cli/main.ts
  // buildProgram), not of the full program: offered after the commands, as --help lists it, and
  // followed by the names of the commands and their sub-commands.
  const root = nodes[0];
  if (root && !root.subcommands.includes('help')) {
    root.subcommands.push('help');
    root.subcommandDescriptions.set('help', HELP_DESCRIPTION);
    walk(
      program,
      'help',
      program.options.filter((o) => o.long !== '--version'),
      true,
    );
  }
  return nodes;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The tables as shell functions (POSIX `case`, read the same by bash and zsh). */
function tables(nodes: readonly Node[]): string {
  const table = (name: string, comment: string, rows: [string, readonly string[]][]) =>
    [
      `# ${comment}`,
      `_bankdata_${name}() {`,
      '  case "$1" in',
      ...rows
        .filter(([, words]) => words.length > 0)
        .map(([key, words]) => `    ${quote(key)}) echo ${quote(words.join(' '))} ;;`),
      '  esac',
      '}',
    ].join('\n');
  return [
    table(
      'subcommands',
      'the sub-commands of a command path',
      nodes.map((n) => [n.path, n.subcommands]),
    ),
    table(
      'options',
      'the options of a command path',
      nodes.map((n) => [n.path, n.options]),
    ),
    table(
      'valued',
      'the options of a command path that take a value',
      nodes.map((n) => [n.path, n.valued]),
    ),
    table(
      'option_values',
      'the values of "PATH OPTION"',
      nodes.flatMap((n) => [...n.optionValues].map(([o, v]): [string, readonly string[]] => [`${n.path} ${o}`, v])),
    ),
    table(
      'argument_values',
      'the values of "PATH N", the command\'s Nth argument (from 0)',
      nodes.flatMap((n) =>
        n.argumentValues.flatMap((v, i): [string, readonly string[]][] => (v ? [[`${n.path} ${i}`, v]] : [])),
      ),
    ),
  ].join('\n\n');
}

/**
 * The candidates for the word being completed: `_bankdata_candidates PROGRAM WORD… CURRENT`
 * walks the words before the current one to find the command path and whether an option's
 * value is due, then prints what may come. Positional parameters only, so bash and zsh read
 * it alike (no arrays, whose indexing differs; no variable named `path`, special in zsh).
 */
const WALK = String.raw`
_bankdata_candidates() {
  local cmdpath='' skip=0 position=0 word='' prev='' option='' current='' subs='' value=''
  shift
  while [ $# -gt 1 ]; do
    prev=$word
    word=$1
    shift
    if [ "$skip" = 1 ]; then
      # An option's value; after --option= the value is one word further.
      if [ "$word" = '=' ]; then option=$prev; else skip=0; fi
      continue
    fi
    case $word in
      --*=*) ;;
      -*)
        case " $(_bankdata_valued "$cmdpath") " in *" $word "*) skip=1; option=$word ;; esac
        ;;
      *)
        case " $(_bankdata_subcommands "$cmdpath") " in
          *" $word "*) cmdpath=${'$'}{cmdpath:+$cmdpath/}$word; position=0 ;;
          *) position=$((position + 1)) ;;
        esac
        ;;
    esac
  done
  current=$1
  if [ "$skip" = 1 ]; then
    _bankdata_option_values "$cmdpath $option"
    return
  fi
  case $current in
    --*=*)
      for value in $(_bankdata_option_values "$cmdpath ${'$'}{current%%=*}"); do echo "${'$'}{current%%=*}=$value"; done
      ;;
    -*) _bankdata_options "$cmdpath" ;;
    *)
      subs=$(_bankdata_subcommands "$cmdpath")
      if [ -n "$subs" ]; then echo "$subs"; else _bankdata_argument_values "$cmdpath $position"; fi
      ;;
  esac
}`;

function bashScript(nodes: readonly Node[]): string {
  return `# bankdata completion for bash. Load it with
#   eval "$(bankdata completion bash)"          (in ~/.bashrc)
# or save it: bankdata completion bash > ~/.local/share/bash-completion/completions/bankdata
${tables(nodes)}
${WALK}

_bankdata() {
  local cur=${'$'}{COMP_WORDS[COMP_CWORD]}
  [ "$cur" = '=' ] && cur=''
  local IFS=${'$'}' \t\n'
  # An empty list lets bash complete file names (complete -o default).
  COMPREPLY=($(compgen -W "$(_bankdata_candidates "${'$'}{COMP_WORDS[@]:0:COMP_CWORD}" "$cur")" -- "$cur"))
}
complete -o default -F _bankdata bankdata
`;
}

function zshScript(nodes: readonly Node[]): string {
  return `#compdef bankdata
# bankdata completion for zsh. Load it with
#   eval "$(bankdata completion zsh)"           (in ~/.zshrc, after compinit)
# or save it as _bankdata in a directory of $fpath.
${tables(nodes)}
${WALK}

_bankdata() {
  local -a candidates
  candidates=(${'$'}{=${'$'}(_bankdata_candidates "${'$'}{(@)words[1,CURRENT-1]}" "${'$'}{words[CURRENT]}")})
  if (( ${'$'}#candidates )); then
    compadd -- "${'$'}{candidates[@]}"
  else
    _files
  fi
}
if [ "${'$'}{funcstack[1]}" = _bankdata ]; then _bankdata "$@"; else compdef _bankdata bankdata; fi
`;
}

/** A word for fish: single-quoted, `\\` and `'` escaped. */
const fishQuote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * The fish script: `complete` rules keyed by the command path, which one function works out
 * from the words typed so far (the same walk as the bash/zsh one: an option that takes a value
 * skips the next word). Fish shows each description beside its candidate.
 */
function fishScript(nodes: readonly Node[]): string {
  const cases = (name: string, rows: [string, readonly string[]][]) =>
    [
      `function __bankdata_${name}`,
      '    switch $argv[1]',
      ...rows
        .filter(([, words]) => words.length > 0)
        .map(
          ([key, words]) =>
            `        case ${fishQuote(key)}\n            printf '%s\\n' ${words.map(fishQuote).join(' ')}`,
        ),
      '    end',
      'end',
    ].join('\n');
  const rules: string[] = [];
  for (const node of nodes) {
    const when = `-n ${fishQuote(`__bankdata_at ${node.path === '' ? "''" : node.path}`)}`;
    for (const sub of node.subcommands) {
      rules.push(
        `complete -c bankdata -f ${when} -a ${fishQuote(sub)} -d ${fishQuote(node.subcommandDescriptions.get(sub) ?? '')}`,
      );
    }
    for (const option of node.optionList) {
      const names = [
        ...(option.long ? [`-l ${fishQuote(option.long.replace(/^--/, ''))}`] : []),
        ...(option.short ? [`-s ${fishQuote(option.short.replace(/^-/, ''))}`] : []),
      ];
      const values = node.optionValues.get(option.long ?? option.short ?? '');
      const takes = option.required || option.optional;
      // A value with no known list: file names (-F); a known list: only those (-x -a).
      const value = !takes ? '' : values ? ` -x -a ${fishQuote(values.join(' '))}` : ' -r -F';
      rules.push(`complete -c bankdata ${when} ${names.join(' ')}${value} -d ${fishQuote(option.description)}`);
    }
    rules.push(`complete -c bankdata ${when} -l help -d 'display help for command'`);
    node.argumentValues.forEach((values, i) => {
      if (values)
        rules.push(
          `complete -c bankdata -f -n ${fishQuote(`__bankdata_at ${node.path} ${i}`)} -a ${fishQuote(values.join(' '))}`,
        );
    });
  }
  return `# bankdata completion for fish. Save it:
#   bankdata completion fish > ~/.config/fish/completions/bankdata.fish
# (the npm package ships it as completions/bankdata.fish). Static: a TAB runs no node.
${cases(
  'subcommands',
  nodes.map((n) => [n.path, n.subcommands]),
)}

${cases(
  'valued',
  nodes.map((n) => [n.path, n.valued]),
)}

# The command path of the words before the cursor (sub-command names joined by /), then the
# number of arguments after it.
function __bankdata_where
    set -l words (commandline -opc)
    set -e words[1]
    set -l cmdpath ''
    set -l skip 0
    set -l position 0
    for word in $words
        if test $skip = 1
            set skip 0
            continue
        end
        switch $word
            case '--*=*'
            case '-*'
                if contains -- $word (__bankdata_valued "$cmdpath")
                    set skip 1
                end
            case '*'
                if contains -- $word (__bankdata_subcommands "$cmdpath")
                    if test -z "$cmdpath"
                        set cmdpath $word
                    else
                        set cmdpath "$cmdpath/$word"
                    end
                    set position 0
                else
                    set position (math $position + 1)
                end
        end
    end
    echo $cmdpath
    echo $position
end

# True when the words typed lead to the command path $argv[1] (and, given, its argument $argv[2]).
function __bankdata_at
    set -l where (__bankdata_where)
    test "$where[1]" = "$argv[1]"; or return 1
    test (count $argv) -lt 2; or test "$where[2]" = "$argv[2]"
end

complete -c bankdata -f
${rules.join('\n')}
`;
}

export function completionScript(shell: string, program: Command): string {
  const nodes = completionNodes(program);
  if (shell === 'bash') return bashScript(nodes);
  if (shell === 'zsh') return zshScript(nodes);
  if (shell === 'fish') return fishScript(nodes);
  throw new UsageError(`completion: unknown shell ${shell} (${SHELLS.join(' or ')})`);
}

export function registerCompletionCommand(program: Command): void {
  printsOnStdout(readsNoConfig(program.command('completion')), 'product')
    .description('print a shell completion script: bankdata completion bash|zsh|fish')
    .argument('<shell>', SHELLS.join(' | '))
    .action(async (shell: string) => {
      printData(completionScript(shell, await buildFullProgram()));
    });
  withExamples(commandNamed(program, 'completion'), [
    {
      line: 'bankdata completion bash > ~/.local/share/bash-completion/completions/bankdata',
      says: 'install the bash completion',
    },
    {
      line: 'bankdata completion fish > ~/.config/fish/completions/bankdata.fish',
      says: 'install the fish completion',
    },
  ]);
  // The values that are not paths (src/cli/path-roles.ts); the paths are made in output-paths.ts.
  notPaths(commandNamed(program, 'completion'), ['<shell>']);
}
