/**
 * The client a readings probe sends through: straight to the target, never through a nemesis. The
 * probe reads each reading off single answers (a replay answered or refused, a batch applied or
 * not) and has no notion of an indeterminate one: a lost answer sent again would read as another
 * reading (a replay of its own first copy, refused, reads as `replay-rejected`), and the run would
 * then be judged under that mistake. The faults are for the run that the readings judge.
 */
import { TargetClient } from '../target/client.ts';
import type { Profile } from '../target/profile.ts';

export function probeClient(profile: Profile, opts: ConstructorParameters<typeof TargetClient>[1] = {}): TargetClient {
  const { nemesis: _nemesis, nemesisPort: _port, ...wire } = profile;
  return new TargetClient(wire, opts);
}
