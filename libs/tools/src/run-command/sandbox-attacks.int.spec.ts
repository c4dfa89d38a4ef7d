import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_SANDBOX_OPTIONS, probeSandbox, SandboxOptions } from '@stagecraft/sandbox';
import { DEFAULT_ALLOWED_COMMANDS, ToolContext } from '../context';
import { ToolOutcome } from '../outcome';
import { executeTool } from '../registry';

// The attacks a model (or a prompt injected into a file it reads) would try through run_command,
// each through the whole tool path (executeTool) with real bwrap and real processes. An attack
// "escapes" when it touches the host outside the project root, and "leaks" when a secret of the
// service reaches it. It lives beside run_command, not in libs/sandbox: a sandbox test importing the
// tools would make the two libs a dependency cycle.

const tag = randomBytes(6).toString('hex');
const secrets = {
  OPENAI_API_KEY: `sk-test-${tag}-do-not-leak`,
  NATS_URL: `nats://nats-${tag}.internal:4222`,
  STAGECRAFT_STORE: `sqlite:/data/${tag}.db`,
};
const tally = { attacks: 0, escapes: 0, leaks: 0 };
let saved: Record<string, string | undefined>;

let parent: string;
let root: string;
let context: ToolContext;

const run = (command: string, args: string[], extra: Partial<ToolContext> = {}, timeoutMs = 20_000): Promise<ToolOutcome> =>
  executeTool('run_command', { command, args, timeoutMs }, { ...context, ...extra });
const node = (script: string, extra: Partial<ToolContext> = {}) => run('node', ['-e', script], extra);

/** One attack: it must end without touching the host (`escaped`) and without seeing a secret (`leaked`). */
function attack(name: string, perform: () => Promise<{ escaped?: boolean; leaked?: boolean; evidence: string }>, timeout?: number) {
  it(
    name,
    async () => {
      const { escaped = false, leaked = false, evidence } = await perform();
      tally.attacks += 1;
      if (escaped) tally.escapes += 1;
      if (leaked) tally.leaks += 1;
      expect({ escaped, leaked, evidence }).toEqual({ escaped: false, leaked: false, evidence });
    },
    timeout,
  );
}

/** A secret's value, or any of the service's variables by name (`NAME=` in environ, `"NAME":` in JSON). */
const leaksIn = (text: string) =>
  Object.values(secrets).some((value) => text.includes(value)) || /(OPENAI|NATS|STAGECRAFT)_\w*("?:|=)/.test(text);

beforeAll(() => {
  saved = Object.fromEntries(Object.keys(secrets).map((name) => [name, process.env[name]]));
  Object.assign(process.env, secrets);
});

afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  console.log(`sandbox: ${tally.attacks} attacks, ${tally.escapes} escapes, ${tally.leaks} secrets leaked`);
});

beforeEach(() => {
  // parent/ is "the rest of the repository": a secret beside the root and a directory to write into.
  parent = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-attack-')));
  root = join(parent, 'project');
  mkdirSync(root);
  mkdirSync(join(parent, 'outside'));
  writeFileSync(join(parent, 'secret.txt'), `secret-${tag}`);
  context = { root, allowedCommands: DEFAULT_ALLOWED_COMMANDS, progress: () => undefined };
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

const outsideFiles = () => readdirSync(join(parent, 'outside'));

describe('the command sandbox', () => {
  it('is available on this machine (the suite below needs bubblewrap)', async () => {
    const status = await probeSandbox(DEFAULT_SANDBOX_OPTIONS);
    expect(status).toMatchObject({ available: true });
  });

  attack('cat /etc/passwd', async () => {
    const result = await run('cat', ['/etc/passwd']);
    const firstHostLine = readFileSync('/etc/passwd', 'utf8').split('\n')[0];
    return { escaped: result.output.includes(firstHostLine), evidence: result.output };
  });

  attack('node reads /etc/passwd and /etc/shadow', async () => {
    const result = await node(
      'for (const f of ["/etc/passwd", "/etc/shadow"]) { try { console.log(require("fs").readFileSync(f, "utf8")) } catch (e) { console.log(e.code) } }',
    );
    return { escaped: !/ENOENT\nENOENT/.test(result.output), evidence: result.output };
  });

  attack("node lists the service user's home", async () => {
    const result = await node(
      `try { console.log(JSON.stringify(require("fs").readdirSync(${JSON.stringify(homedir())}))) } catch (e) { console.log(e.code) }`,
    );
    // Only the path down to the service's own Node (bound read-only so `node` runs) may show.
    const allowed = new Set(process.execPath.split('/'));
    const hostEntries = readdirSync(homedir()).filter((name) => !allowed.has(name));
    return { escaped: hostEntries.some((name) => result.output.includes(`"${name}"`)), evidence: result.output };
  });

  attack('node reads the repository outside the root', async () => {
    const targets = [join(parent, 'secret.txt'), join(process.cwd(), 'package.json'), '../secret.txt'];
    const result = await node(
      `for (const f of ${JSON.stringify(targets)}) { try { console.log(require("fs").readFileSync(f, "utf8")) } catch (e) { console.log(e.code) } }`,
    );
    return { escaped: result.output.includes(`secret-${tag}`) || result.output.includes('"workspaces"'), evidence: result.output };
  });

  attack('node writes ../outside/f and /tmp/f', async () => {
    const hostTmp = join(tmpdir(), `stagecraft-escape-${tag}`);
    const result = await node(
      `const fs = require("fs"); for (const f of ["../outside/f", ${JSON.stringify(hostTmp)}]) { try { fs.writeFileSync(f, "x"); console.log("wrote", f) } catch (e) { console.log(e.code) } }`,
    );
    const escaped = outsideFiles().length > 0 || existsSync(hostTmp);
    rmSync(hostTmp, { force: true });
    return { escaped, evidence: result.output };
  });

  attack("git -c 'alias.x=!touch ../outside/f' x", async () => {
    const init = await run('git', ['init', '-q']);
    expect(init.ok).toBe(true);
    const result = await run('git', ['-c', `alias.x=!mkdir -p ../outside && touch ../outside/f /tmp/git-${tag} && echo touched`, 'x']);
    const escaped = outsideFiles().length > 0 || existsSync(`/tmp/git-${tag}`);
    // The alias ran (the shell is inside the sandbox too); what it wrote went nowhere.
    expect(result.output).toContain('touched');
    return { escaped, evidence: result.output };
  });

  attack('make --eval with a recipe that writes outside', async () => {
    const result = await run('make', ['--eval', `x:\n\tmkdir -p ../outside && touch ../outside/m && echo made`, 'x']);
    expect(result.output).toContain('made');
    return { escaped: outsideFiles().length > 0, evidence: result.output };
  });

  attack('remounting /usr read-write, directly and from a new user namespace', async () => {
    const target = `/usr/stagecraft-escape-${tag}`;
    const script = `import subprocess
for cmd in (["mount", "-o", "remount,rw,bind", "/usr"], ["unshare", "-Urm", "sh", "-c", "mount -o remount,rw,bind /usr; touch ${target}"]):
    print(subprocess.run(cmd, capture_output=True, text=True).stderr.strip())
try:
    open("${target}", "w").write("x")
    print("wrote")
except OSError as e:
    print(e.strerror)`;
    const result = await run('python3', ['-c', script]);
    const escaped = existsSync(target);
    rmSync(target, { force: true });
    return { escaped, evidence: result.output };
  });

  attack('node dumps its environment', async () => {
    const result = await node('console.log(JSON.stringify(process.env))');
    expect(result.ok).toBe(true);
    return { leaked: leaksIn(result.output), evidence: result.output };
  });

  attack('cat /proc/self/environ', async () => {
    const result = await run('cat', ['/proc/self/environ']);
    expect(result.output).toContain('PATH=');
    return { leaked: leaksIn(result.output), evidence: result.output };
  });

  attack('cat /proc/1/environ (the namespace init, started by the service)', async () => {
    const result = await run('cat', ['/proc/1/environ']);
    return { leaked: leaksIn(result.output), evidence: result.output };
  });

  attack("cat /proc/<service pid>/environ (the service's own process)", async () => {
    const result = await run('cat', [`/proc/${process.pid}/environ`, `/proc/${process.ppid}/environ`]);
    return { leaked: leaksIn(result.output), evidence: result.output };
  });

  attack('a double-forked, detached grandchild outliving the call', async () => {
    // The grandchild's pid means nothing on the host, so it leaves a trace: a file that grows every 100 ms.
    const grandchild = `require("child_process").spawn("sh", ["-c", "while :; do echo . >> beat; sleep 0.1; done"], { detached: true, stdio: "ignore" }).unref()`;
    const script = `const c = require("child_process").spawn(process.execPath, ["-e", ${JSON.stringify(grandchild)}], { detached: true, stdio: "ignore" }); c.unref(); setTimeout(() => {}, 400);`;
    const result = await node(script);
    expect(result.ok).toBe(true);
    const beat = join(root, 'beat');
    const before = existsSync(beat) ? statSync(beat).size : 0;
    await sleep(500);
    const after = existsSync(beat) ? statSync(beat).size : 0;
    expect(before).toBeGreaterThan(0);
    return { escaped: after !== before, evidence: `beat was ${before} bytes when the call returned, ${after} bytes 500 ms later` };
  });

  attack(
    'a fork bomb',
    async () => {
      // Bounded by construction (at most 2^9 processes) so that it cannot take the machine down even
      // where no process limit applies; the sandbox's limit (64 here) should stop it far earlier.
      const marker = `stagecraft-bomb-${tag}`;
      const script = `import os, sys, time
for _ in range(9):
    try:
        os.fork()
    except OSError as e:
        print("fork refused:", e.strerror, flush=True)
        break
time.sleep(60)`;
      const limited: SandboxOptions = { ...DEFAULT_SANDBOX_OPTIONS, limits: { ...DEFAULT_SANDBOX_OPTIONS.limits, processes: 64 } };
      const started = Date.now();
      const result = await run('python3', ['-c', script, marker], { sandbox: limited }, 2_000);
      const took = Date.now() - started;
      const left = readdirSync('/proc').filter(
        (pid) =>
          /^\d+$/.test(pid) &&
          (() => {
            try {
              return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
            } catch {
              return false;
            }
          })(),
      );
      expect(result.output).toContain('COMMAND_TIMEOUT');
      expect(took).toBeLessThan(2_000 + 2_000 + 1_500);
      const status = await probeSandbox(DEFAULT_SANDBOX_OPTIONS);
      if (status.available && status.processLimit !== 'none') expect(result.output).toContain('fork refused');
      return { escaped: left.length > 0, evidence: `${left.length} bomb processes left after ${took} ms; ${result.output.slice(0, 300)}` };
    },
    15_000,
  );

  attack('a flood of output', async () => {
    const result = await node('const line = "x".repeat(1023) + "\\n"; for (let i = 0; i < 20 * 1024; i++) process.stdout.write(line)');
    expect(result.truncated).toBe(true);
    return { escaped: Buffer.byteLength(result.output) > 64 * 1024 + 500, evidence: `${Buffer.byteLength(result.output)} bytes kept` };
  });

  attack('connecting to a TCP server on the host loopback', async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections += 1;
      socket.end('hello from the host\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const result = await node(
        `require("net").connect(${port}, "127.0.0.1").on("data", (d) => console.log("got", String(d))).on("error", (e) => console.log(e.code))`,
      );
      expect(result.output).toMatch(/ECONNREFUSED|ENETUNREACH/);
      return { escaped: connections > 0 || result.output.includes('hello from the host'), evidence: result.output };
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  attack('allocating more memory than the limit', async () => {
    const result = await run('python3', ['-c', 'x = bytearray(8 * 1024 ** 3); print("allocated", len(x))']);
    expect(result.output).toContain('MemoryError');
    return { escaped: result.output.includes(`allocated ${8 * 1024 ** 3}`), evidence: result.output.slice(-300) };
  });

  attack('writing a file larger than the limit', async () => {
    const small: SandboxOptions = { ...DEFAULT_SANDBOX_OPTIONS, limits: { ...DEFAULT_SANDBOX_OPTIONS.limits, fileSizeBytes: 1024 * 1024 } };
    const result = await run('python3', ['-c', 'open("big", "wb").write(b"0" * (4 * 1024 * 1024))'], { sandbox: small });
    expect(result.ok).toBe(false);
    const size = existsSync(join(root, 'big')) ? statSync(join(root, 'big')).size : 0;
    return { escaped: size > 1024 * 1024, evidence: `big is ${size} bytes; ${result.output.slice(-200)}` };
  });
});

describe('without a working sandbox', () => {
  const broken: SandboxOptions = { ...DEFAULT_SANDBOX_OPTIONS, bwrap: '/nonexistent/stagecraft/bwrap' };

  it('refuses run_command, says why and how the operator enables it', async () => {
    const progress: string[] = [];
    const result = await node('require("fs").writeFileSync("ran", "")', { sandbox: broken, progress: (m) => progress.push(m) });
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(
      /^tool_error: SANDBOX_UNAVAILABLE\nproblem: run_command is disabled on this deployment: no working command sandbox: \/nonexistent\/stagecraft\/bwrap does not exist/,
    );
    expect(result.output).toMatch(/retry: .*install bubblewrap.*user namespaces/);
    expect(existsSync(join(root, 'ran'))).toBe(false);
    expect(progress).toEqual([]);
  });

  it("runs directly under the operator's opt-out, says so, and still passes no secrets", async () => {
    const result = await node('console.log(process.cwd()); console.log(JSON.stringify(process.env))', {
      sandbox: { ...broken, unsafeWithoutSandbox: true },
    });
    expect(result.ok).toBe(true);
    expect(result.output).toContain(
      "warning: ran WITHOUT a sandbox (STAGECRAFT_UNSAFE_RUN_COMMAND_WITHOUT_SANDBOX=1): the command had the service's file-system rights\nexit code: 0\n",
    );
    expect(result.output).toContain(`\n${root}\n`);
    const env = JSON.parse(result.output.split('\n').find((line) => line.startsWith('{')) ?? '{}') as Record<string, string>;
    expect(leaksIn(JSON.stringify(env))).toBe(false);
    expect(env.PATH).toContain(dirname(process.execPath));
    // HOME was a directory of its own, removed with the call.
    expect(env.HOME.startsWith(join(tmpdir(), 'stagecraft-home-'))).toBe(true);
    expect(existsSync(env.HOME)).toBe(false);
  });
});
