/**
 * Issue 31, "a rolling deploy under a backlog", in both delivery modes: bridge A drains a backlog
 * of reminders under the group's platform budget (SIGNING_RPS=5), bridge B joins the group 10 s
 * after A started, and A gets SIGTERM 10 s after B joined, as a rolling deploy replaces one
 * instance by another. Every reminder must end exactly once (one `ce_id`), reach the platform at
 * most once (exactly once when it says sent), and end "outcome unknown" only if the platform
 * received its call.
 *
 * The shape is 400 reminders for 40 contracts; scaled here to 300 reminders for 30
 * contracts (10 each, each naming a signatory of its own, sent round by round over the contracts
 * before A starts), over 12 partitions, the simulator answering at once. At 5 a second the
 * backlog lasts about 60 s; the 10 s count from A, then B, saying it started (B's start takes 5
 * to 20 s, by the machine's load), so some 100 to 200 reminders still wait for rate tokens when
 * A is stopped (the test reports it if none was left).
 * Bound: every reminder ends within 60 s after A exited, plus what the budget needs for the
 * reminders left then (left / 5 s).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, inject, it } from 'vitest';
import { useGroupCases } from './group-case.js';
import { reminderLoad } from './reminders.js';

const brokers = inject('kafkaBrokers').split(',');
const SHAPE = { contracts: 30, perContract: 10, rps: 5, joinAfterMs: 10_000, stopAfterMs: 10_000 };
const HANDOVER_BOUND_MS = 60_000;
const cases = useGroupCases(brokers);

describe.each(['at-least-once', 'exactly-once'])('delivery mode %s', (mode) => {
  it('when B joins a group draining a rate-limited backlog and A is then stopped (SIGTERM), then every reminder ends exactly once, none reaches the platform twice, and none ends "outcome unknown" unless the platform received its call', async () => {
    const run = await cases.open();
    const load = await reminderLoad(cases.sim, { ...SHAPE, label: 'deploy' });
    const total = load.commandIds.length;
    const ended = () => run.ended(load.commandIds);
    await run.sender.send(load.commands);
    const env = { DELIVERY_MODE: mode, SIGNING_RPS: String(SHAPE.rps) };

    const a = await run.join('A', env);
    const began = performance.now();
    await delay(SHAPE.joinAfterMs);
    const b = await run.join('B', env);
    const atJoin = ended();
    await delay(SHAPE.stopAfterMs);
    const atStop = ended();
    a.bridge.kill('SIGTERM');
    const exitOfA = await a.bridge.exited;
    const left = total - ended();
    const lastChangeS = ((performance.now() - began) / 1000).toFixed(1);
    const shape = [
      ...(atStop < total ? [] : ['the backlog had drained before A got SIGTERM']),
      ...(exitOfA === 0 ? [] : [`A exited ${exitOfA} after SIGTERM`]),
    ];
    const boundMs = HANDOVER_BOUND_MS + (left * 1000) / SHAPE.rps;
    const { line, problems } = await run.verdict(cases.sim, load, boundMs, shape);

    console.log(
      `[rolling-deploy ${mode}] ${line}; ended when B joined ${atJoin}, when A got SIGTERM ` +
        `${atStop}, when A exited ${total - left} (${lastChangeS} s after A started)`,
    );
    expect(problems).toEqual({});
    b.bridge.kill('SIGTERM');
    expect(await b.bridge.exited).toBe(0);
  }, 480_000);
});
