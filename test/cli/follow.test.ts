// `signing-bridge tail` and `history` as processes, against a bridge running on the real broker
// and the simulator.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { useEndToEnd } from '../e2e/support/e2e.js';
import { commands, TEST_PARTITIONS } from '../support/bridge-harness.js';
import { cli, killAll } from '../support/cli-process.js';
import { uniqueId } from '../support/unique.js';
import { clockPast } from '../support/wait.js';

const e2e = useEndToEnd();
const env = () => ({
  KAFKA_BROKERS: inject('kafkaBrokers'),
  TOPIC_PREFIX: e2e.topics.events.slice(0, -'events'.length),
  TOPIC_PARTITIONS: String(TEST_PARTITIONS),
});

afterEach(killAll);

interface EventLine {
  type: string;
  bizId: string;
  commandId: string;
  terminal: boolean;
  time: string;
}

/** Sends a create-contract for a new bizId; resolves once it ended. */
async function contract(label: string) {
  const bizId = uniqueId(label);
  const { command } = await commands.createContract(bizId);
  await e2e.ended(await e2e.send('create-contract', command));
  return { bizId, commandId: command.commandId };
}

describe('signing-bridge tail', () => {
  it('when following a bizId from now on, then its events print as they come, and SIGINT ends it with 0', async () => {
    const followed = uniqueId('tail');
    const run = cli(['tail', '--json', '--biz-id', followed], env());
    await run.waitFor(/following .* Ctrl-C stops/);
    const other = await commands.createContract(uniqueId('other'));
    const mine = await commands.createContract(followed);
    await e2e.send('create-contract', other.command);
    await e2e.send('create-contract', mine.command);
    await run.waitFor(/"terminal":true/, 'stdout');
    run.child.kill('SIGINT');
    expect(await run.exit).toBe(0);
    const lines = run.json<EventLine>();
    expect(lines.map((l) => [l.type, l.bizId, l.commandId, l.terminal])).toEqual([
      ['signingbridge.draft.created', followed, mine.command.commandId, false],
      ['signingbridge.contract.created', followed, mine.command.commandId, true],
    ]);
  });

  it('when asked for a type from the beginning, or since a time, then only those events print', async () => {
    const earlier = await contract('earlier');
    const since = new Date(Date.now() + 1).toISOString();
    await clockPast(since);
    const later = await contract('later');

    const typed = cli(['tail', '--json', '--from-beginning', '--type', 'contract.created'], env());
    await typed.waitFor(new RegExp(later.commandId), 'stdout');
    typed.child.kill('SIGTERM');
    expect(await typed.exit).toBe(0);
    const types = new Set(typed.json<EventLine>().map((l) => l.type));
    expect(types).toEqual(new Set(['signingbridge.contract.created']));
    expect(typed.json<EventLine>().map((l) => l.commandId)).toContain(earlier.commandId);

    const recent = cli(['tail', '--json', '--since', since], env());
    await recent.waitFor(
      new RegExp(`"commandId":"${later.commandId}","id":"[^"]*","terminal":true`),
      'stdout',
    );
    recent.child.kill('SIGINT');
    expect(await recent.exit).toBe(0);
    const commandIds = new Set(recent.json<EventLine>().map((l) => l.commandId));
    expect(commandIds).toEqual(new Set([later.commandId]));
  });

  it('when on a terminal without --json, then each event is one readable line, its end marked', async () => {
    const ended = await contract('human');
    const run = cli(['tail', '--from-beginning', '--biz-id', ended.bizId], env());
    const line = await run.waitFor(/.*signingbridge\.contract\.created.*/, 'stdout');
    run.child.kill('SIGINT');
    expect(await run.exit).toBe(0);
    expect(line).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  signingbridge\\.contract\\.created +${ended.bizId} +${ended.commandId}  contract \\S+, 0 documents, a draft  \\(end\\)$`,
      ),
    );
  });
});

describe('signing-bridge history', () => {
  it('when a bizId has commands, events and a dead letter, then every record prints in order with each command outcome', async () => {
    const { bizId, commandId } = await contract('history');
    const broken = { commandId: `${bizId}-broken`, bizId, payload: { pass: 'yes' } };
    await e2e.ended(await e2e.sendUnchecked('approve', broken));
    const deadLetter = () => e2e.collector.deadLetters.some((d) => d.key === bizId);
    await e2e.collector.waitUntil(deadLetter, 10_000, 'the dead letter');
    await contract('someone-else');

    const run = cli(['history', bizId, '--json'], env());
    expect(await run.exit).toBe(0);
    const lines = run.json<{ kind: string; type?: string; commandId?: string; ended?: string }>();
    const kinds = lines.map((l) => [l.kind, l.type ?? l.ended ?? '', l.commandId]);
    expect(kinds.filter(([kind]) => kind !== 'dead-letter')).toEqual([
      ['command', 'create-contract', commandId],
      ['event', 'signingbridge.draft.created', commandId],
      ['event', 'signingbridge.contract.created', commandId],
      ['command', 'approve', broken.commandId],
      ['event', 'signingbridge.command.rejected', broken.commandId],
      ['outcome', 'signingbridge.contract.created', commandId],
      ['outcome', 'signingbridge.command.rejected', broken.commandId],
    ]);
    expect(lines.find((l) => l.kind === 'dead-letter')).toMatchObject({
      commandId: broken.commandId,
      errorCode: 'SB_ERR_COMMAND_INVALID',
    });

    const human = cli(['history', bizId], env());
    expect(await human.exit).toBe(0);
    expect(human.output.stdout).toContain(`bizId ${bizId}: 6 records`);
    expect(human.output.stdout).toMatch(
      new RegExp(`outcomes:\\n  ${commandId} +create-contract +signingbridge\\.contract\\.created`),
    );
  });

  it('when a bizId has nothing, then it says so with no record and exits 0', async () => {
    const run = cli(['history', uniqueId('nobody')], env());
    expect(await run.exit).toBe(0);
    expect(run.output.stdout).toMatch(/: 0 records/);
  });
});
