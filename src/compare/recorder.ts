/**
 * What a suite run sent and got back, case by case, for comparing targets. The runner already
 * sends every request of a case through one client and announces each finished case (its `case`
 * progress event), so a client that keeps its exchanges and a progress hook that cuts them into
 * cases record a run without the runner knowing. Cases run one after another; the exchanges of one
 * case are kept in the order they were started (a case's concurrent requests then line up alike on
 * every target, whatever order their answers came back in).
 */
import type { CallOptions, Exchange } from '../target/client.ts';
import { TargetClient } from '../target/client.ts';
import type { Profile } from '../target/profile.ts';
import type { ProgressEvent } from '../check/run/index.ts';

/** The exchanges of one case, in the order they were started. */
export type CaseExchanges = readonly Exchange[];

/** Property id → its cases, in the order they ran. */
export type CaseLog = ReadonlyMap<string, readonly CaseExchanges[]>;

/** Exchanges kept per case: a case beyond this is cut (its summary says so), so memory stays bounded. */
export const MAX_EXCHANGES_PER_CASE = 64;
/** Cases kept per property (shrinking may run many more; only the first ones are compared). */
export const MAX_CASES_PER_PROPERTY = 200;

/** A client that keeps every exchange it makes, in start order, until `take()` hands them over. */
export class RecordingClient extends TargetClient {
  private pending: (Exchange | undefined)[] = [];

  constructor(profile: Profile, opts: ConstructorParameters<typeof TargetClient>[1] = {}) {
    super(profile, opts);
  }

  override async call(o: CallOptions): Promise<Exchange> {
    const slot = this.pending.length;
    const keep = slot < MAX_EXCHANGES_PER_CASE;
    if (keep) this.pending.push(undefined);
    const ex = await super.call(o);
    if (keep && this.pending.length > slot) this.pending[slot] = ex;
    return ex;
  }

  /** The exchanges since the last `take()`, answered ones only, in start order. */
  take(): Exchange[] {
    const out = this.pending.filter((e): e is Exchange => e !== undefined);
    this.pending = [];
    return out;
  }
}

/** Cuts a recording client's exchanges into cases by the runner's progress events. */
export class CaseRecorder {
  private readonly log = new Map<string, CaseExchanges[]>();

  constructor(readonly client: RecordingClient) {}

  readonly onProgress = (e: ProgressEvent): void => {
    switch (e.type) {
      case 'property-start':
        this.client.take();
        this.log.set(e.id, []);
        return;
      case 'case': {
        const cases = this.log.get(e.id);
        const exchanges = this.client.take();
        if (cases && cases.length < MAX_CASES_PER_PROPERTY) cases.push(exchanges);
        return;
      }
      case 'property-end':
        // Whatever a case cut short by the property's time bound sent belongs to no case.
        this.client.take();
        return;
      default:
        return e satisfies never;
    }
  };

  cases(): CaseLog {
    return this.log;
  }
}
