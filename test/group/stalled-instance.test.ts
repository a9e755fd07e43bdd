/**
 * Issue 31, "an instance that stalls", in both delivery modes: bridges A and B share a backlog of
 * reminders while the platform answers in 1.5 s ± 0.5 s; A is frozen (SIGSTOP) for 15 s, longer
 * than the group's 10 s session, so the group evicts it while its calls are in flight, then it
 * continues (SIGCONT); again once it holds partitions again; then B once. Every reminder must end
 * exactly once (one `ce_id`), reach the platform at most once (exactly once when it says sent),
 * and end "outcome unknown" only if the platform received its call.
 *
 * The shape is 40 reminders for each of 60 contracts; scaled here to 40 for each of 16
 * (640, each naming a signatory of its own, sent round by round over the contracts before A and B
 * start), over 12 partitions, SIGNING_RPS=10 (the default). About 15 calls are in flight at any
 * time; each freeze comes once the frozen bridge holds partitions (its log says so), 10 more
 * reminders have ended since the last step and others still wait, and the next once it has
 * acquired partitions again after continuing.
 * The backlog lasts through the last freeze (the test reports it if it did not).
 * Bound: every reminder ends within 60 s after B continued, plus what the budget needs for the
 * reminders left then (left / 10 s).
 */
import { describe, expect, inject, it } from 'vitest';
import { SESSION_TIMEOUT_MS } from '../../src/kafka/index.js';
import { type Member, useGroupCases } from './group-case.js';
import { reminderLoad } from './reminders.js';

const brokers = inject('kafkaBrokers').split(',');
const SHAPE = {
  contracts: 16,
  perContract: 40,
  rps: 10,
  latency: { meanMs: 1_500, stdDevMs: 500 },
  freezeMs: SESSION_TIMEOUT_MS + 5_000,
};
const HANDOVER_BOUND_MS = 60_000;
/** How long a step of the scenario may take to come about (a member holding partitions). */
const STEP_MS = 30_000;
/** Reminders that end before each freeze, since the one before: calls are under way. */
const PROGRESS = 10;
const cases = useGroupCases(brokers);

describe.each(['at-least-once', 'exactly-once'])('delivery mode %s', (mode) => {
  it('when a bridge stalls longer than its session while its calls are in flight (A twice, then B), then every reminder ends exactly once, none reaches the platform twice, and none ends "outcome unknown" unless the platform received its call', async () => {
    const run = await cases.open();
    const load = await reminderLoad(cases.sim, { ...SHAPE, label: 'stall' });
    const total = load.commandIds.length;
    const ended = () => run.ended(load.commandIds);
    await cases.sim.admin.setFaults({ latency: SHAPE.latency });
    await run.sender.send(load.commands);
    const env = { DELIVERY_MODE: mode, SIGNING_RPS: String(SHAPE.rps) };
    const [a, b] = await Promise.all([run.join('A', env), run.join('B', env)]);
    const began = performance.now();

    const shape: string[] = [];
    const frozen: string[] = [];
    let endedBefore = 0;
    const freeze = async (member: Member, rejoin: boolean) => {
      shape.push(
        ...(await run.reached(
          `${member.name} holds partitions while reminders end (${PROGRESS} more) and others wait`,
          () => member.held().size > 0 && ended() >= endedBefore + PROGRESS && ended() < total,
          STEP_MS,
        )),
      );
      const acquired = member.acquisitions();
      frozen.push(`${member.name} at ${ended()} ended`);
      await member.freeze(SHAPE.freezeMs);
      endedBefore = ended();
      if (!rejoin) return;
      shape.push(
        ...(await run.reached(
          `${member.name} acquires partitions again after it continued`,
          () => member.acquisitions() > acquired,
          STEP_MS,
        )),
      );
    };
    await freeze(a, true);
    await freeze(a, true);
    await freeze(b, false);
    const left = total - ended();
    const lastChangeS = ((performance.now() - began) / 1000).toFixed(1);
    if (left === 0) shape.push('the backlog had drained before B continued');
    const boundMs = HANDOVER_BOUND_MS + (left * 1000) / SHAPE.rps;
    const { line, problems } = await run.verdict(cases.sim, load, boundMs, shape);

    console.log(
      `[stalled-instance ${mode}] ${line}; frozen: ${frozen.join(', ')}; ended when B continued ` +
        `${total - left} (${lastChangeS} s after both started)`,
    );
    expect(problems).toEqual({});
    for (const { bridge } of [a, b]) bridge.kill('SIGTERM');
    expect(await Promise.all([a.bridge.exited, b.bridge.exited])).toEqual([0, 0]);
  }, 600_000);
});
