/**
 * Sessions across a reconnect: a wrong resume secret gets a fresh session and SESSION_UNKNOWN and
 * leaves the real one alone; the right secret resumes it.
 */
import type { Welcome } from '../../protocol';
import { ErrorCode } from '../../protocol';
import { describeMessage } from '../backendPeer';
import type { Check } from '../check';
import { verify } from '../check';
import type { BackendContext } from './context';
import { helloMessage, nextError } from './context';

/** 43 base64url characters, like a real secret, but not the session's. */
const WRONG_SECRET = 'conformanceWrongSecret_0123456789abcdefghij';

async function helloAgain(context: BackendContext, resumeSession: string, resumeSecret: string | undefined): Promise<{ welcome: Welcome; peer: Awaited<ReturnType<BackendContext['connect']>> }> {
  const peer = await context.connect();
  peer.send(helloMessage({ resumeSession, ...(resumeSecret ? { resumeSecret } : {}) }));
  const welcome = await context.wait(peer, (m): m is Welcome => m.type === 'welcome', 'welcome');
  return { welcome, peer };
}

export const SESSION_CHECKS: Check<BackendContext>[] = [
  {
    id: 'session.resume',
    title: 'After a disconnect, a wrong resume secret gets a fresh session; the right one resumes',
    expected: `welcome with a resumeSecret; a hello with a wrong secret: welcome (resumed false, another sessionId) and error ${ErrorCode.SessionUnknown}; then with the right secret: welcome (resumed true, the same sessionId)`,
    async run(context) {
      const first = await context.session();
      const { sessionId, resumeSecret } = first.welcome;
      verify(resumeSecret, 'the welcome carries no resumeSecret (see "Sessions" in PROTOCOL.md)');
      await first.peer.close();

      const wrong = await helloAgain(context, sessionId, WRONG_SECRET);
      verify(!wrong.welcome.resumed && wrong.welcome.sessionId !== sessionId, `a wrong secret got ${describeMessage(wrong.welcome)} for ${wrong.welcome.sessionId === sessionId ? 'the same' : 'another'} session`);
      const error = await nextError(context, wrong.peer, 0);
      verify(error.code === ErrorCode.SessionUnknown, describeMessage(error));
      await wrong.peer.close();

      const right = await helloAgain(context, sessionId, resumeSecret);
      verify(right.welcome.resumed && right.welcome.sessionId === sessionId, `the right secret got ${describeMessage(right.welcome)} for ${right.welcome.sessionId === sessionId ? 'the same' : 'another'} session`);
      return `wrong secret: fresh session and ${error.code}; right secret: resumed`;
    },
  },
];
