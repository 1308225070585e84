/**
 * The program's command table (src/cli/main.ts): the light stubs `bankdata --help` shows say
 * exactly what the real commands say, and every entry loads a module that registers its command.
 */
import { describe, expect, it } from 'vitest';
import { buildFullProgram, buildProgram, COMMANDS } from '../../src/cli/main';

describe('the command table', () => {
  it('bankdata --help from the stubs is the help of the program with every command loaded', async () => {
    const full = await buildFullProgram();
    expect(buildProgram([]).helpInformation()).toBe(full.helpInformation());
    expect(full.commands.map((c) => c.name())).toEqual(COMMANDS.map((c) => c.name));
  });

  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    '%s: its module registers the command with the description of its entry',
    async (_name, entry) => {
      const program = buildProgram([]);
      const before = program.commands.length;
      const real = (await buildFullProgram()).commands.find((c) => c.name() === entry.name);
      expect(real?.description()).toBe(entry.description);
      expect(program.commands.length).toBe(before);
    },
  );
});
