import { Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli.js';

// `mockapi --help` lists the commands without loading them (src/cli.ts): each stands in by the
// line its table gives, which must be the line commander prints for the loaded command.
describe('the command table of the top-level help', () => {
  it.each(commands.map((command) => [command.name, command] as const))('says of %s what the loaded command says', async (name, command) => {
    const loaded = await command.load();
    expect(loaded.name()).toBe(name);
    expect(command.term).toBe(new Help().subcommandTerm(loaded));
    expect(command.description).toBe(new Help().subcommandDescription(loaded));
  });
});
