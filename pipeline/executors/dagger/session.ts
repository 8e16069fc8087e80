/**
 * Are we inside a Dagger session? `dagger run <cmd>` and `dagger exec <cmd>` start an
 * engine session and pass its port and token to <cmd> as DAGGER_SESSION_PORT and
 * DAGGER_SESSION_TOKEN. Without both, the SDK would try to download its CLI and start an
 * engine itself; cspipe never lets it (fast failure instead).
 */
export function daggerSessionProblem(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const port = env.DAGGER_SESSION_PORT;
  const token = env.DAGGER_SESSION_TOKEN;
  if (!port && !token) {
    return (
      "not inside a Dagger session (DAGGER_SESSION_PORT and DAGGER_SESSION_TOKEN are unset). " +
      "Start one with 'dagger run ./cspipe run ...', or use --executor local."
    );
  }
  if (!port || !token) return `DAGGER_SESSION_${port ? "TOKEN" : "PORT"} is unset while DAGGER_SESSION_${port ? "PORT" : "TOKEN"} is set; run cspipe under 'dagger run' rather than setting these by hand.`;
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return `DAGGER_SESSION_PORT='${port}' is not a TCP port number; run cspipe under 'dagger run'.`;
  return undefined;
}
