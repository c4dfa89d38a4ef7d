import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
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

/** A repository made on the host, as the user's would be: one commit, so `git log` has something to show. */
function hostRepo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.com', ...args], { cwd: dir });
  git('init', '-q');
  writeFileSync(join(dir, 'README.md'), 'hello\n');
  git('add', 'README.md');
  git('commit', '-q', '-m', 'first commit');
  return readFileSync(join(dir, '.git', 'config'), 'utf8');
}

const lexists = (path: string) => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

describe('version-control metadata, which the host executes from', () => {
  attack('node writes .git/hooks/post-checkout and appends core.fsmonitor to .git/config', async () => {
    const config = hostRepo(root);
    const result = await node(
      `const fs = require("fs"); for (const [f, write] of [[".git/hooks/post-checkout", fs.writeFileSync], [".git/config", fs.appendFileSync]]) { try { write(f, "[core]\\n\\tfsmonitor = touch ../outside/pwned\\n", { mode: 0o755 }); console.log("wrote", f) } catch (e) { console.log(e.code) } }`,
    );
    expect(result.output).toContain('EROFS\nEROFS');
    const escaped = existsSync(join(root, '.git/hooks/post-checkout')) || readFileSync(join(root, '.git/config'), 'utf8') !== config;
    return { escaped, evidence: result.output };
  });

  attack('git config core.hooksPath and core.fsmonitor', async () => {
    const config = hostRepo(root);
    const hooks = await run('git', ['config', 'core.hooksPath', '/tmp/hooks']);
    const fsmonitor = await run('git', ['config', 'core.fsmonitor', 'touch ../outside/pwned']);
    expect([hooks.ok, fsmonitor.ok]).toEqual([false, false]);
    return { escaped: readFileSync(join(root, '.git/config'), 'utf8') !== config, evidence: `${hooks.output}\n${fsmonitor.output}` };
  });

  attack('moving .git aside, or deleting its hooks, to plant a new one', async () => {
    const config = hostRepo(root);
    const result = await node(
      `const fs = require("fs"); for (const step of [() => fs.renameSync(".git", "old-git"), () => fs.rmSync(".git/hooks", { recursive: true }), () => fs.rmSync(".git", { recursive: true })]) { try { step(); console.log("done") } catch (e) { console.log(e.code) } }`,
    );
    const escaped =
      !existsSync(join(root, '.git/HEAD')) ||
      !existsSync(join(root, '.git/hooks')) ||
      readFileSync(join(root, '.git/config'), 'utf8') !== config;
    return { escaped, evidence: result.output };
  });

  attack('git init in a root without a repository, then core.fsmonitor and a hook', async () => {
    const script = `import subprocess
subprocess.run(["git", "init", "-q"], check=True)
subprocess.run(["git", "config", "core.fsmonitor", "touch ../outside/pwned"], check=True)
open(".git/hooks/post-checkout", "w").write("#!/bin/sh\\ntouch ../outside/pwned\\n")
print("planted")`;
    const result = await run('python3', ['-c', script]);
    expect(result.output).toContain('planted');
    expect(result.output).toMatch(/moved aside: \.git -> \.stagecraft-quarantine-\w+\/\.git\.quarantined/);
    // The user's data is kept where they can look at it, under a name git does not look for.
    const [quarantine] = readdirSync(root).filter((n) => n.startsWith('.stagecraft-quarantine-'));
    expect(readFileSync(join(root, quarantine, '.git.quarantined/config'), 'utf8')).toContain('fsmonitor');
    return { escaped: lexists(join(root, '.git')), evidence: result.output };
  });

  attack('a .git symlink planted in a root without one', async () => {
    const result = await node('require("fs").symlinkSync("../outside", ".git"); console.log("linked")');
    expect(result.output).toContain('linked');
    return { escaped: lexists(join(root, '.git')), evidence: result.output };
  });

  attack("writing a nested repository's .git/config and a submodule's .git file", async () => {
    const nested = hostRepo(join(root, 'vendor', 'lib'));
    mkdirSync(join(root, 'modules', 'child'), { recursive: true });
    writeFileSync(join(root, 'modules', 'child', '.git'), 'gitdir: ../../.git/modules/child\n');
    const result = await node(
      `const fs = require("fs"); for (const [f, write] of [["vendor/lib/.git/config", fs.appendFileSync], ["modules/child/.git", fs.writeFileSync]]) { try { write(f, "gitdir: /tmp/evil\\n[core]\\n\\thooksPath = /tmp\\n"); console.log("wrote", f) } catch (e) { console.log(e.code) } }`,
    );
    expect(result.output).toContain('EROFS\nEROFS');
    const escaped =
      readFileSync(join(root, 'vendor/lib/.git/config'), 'utf8') !== nested ||
      readFileSync(join(root, 'modules/child/.git'), 'utf8') !== 'gitdir: ../../.git/modules/child\n';
    return { escaped, evidence: result.output };
  });

  attack('a nested repository created by the command', async () => {
    hostRepo(root);
    const result = await node(
      'const fs = require("fs"); fs.mkdirSync("sub/.git/hooks", { recursive: true }); fs.writeFileSync("sub/.git/config", "[core]\\n\\tfsmonitor = touch ../pwned\\n"); console.log("made")',
    );
    expect(result.output).toMatch(/moved aside: sub\/\.git -> /);
    return { escaped: lexists(join(root, 'sub/.git')), evidence: result.output };
  });

  it('leaves ordinary writes in the root and git reads working', async () => {
    hostRepo(root);
    const status = await run('git', ['status', '--short']);
    const log = await run('git', ['log', '--oneline']);
    const write = await node('require("fs").mkdirSync("src"); require("fs").writeFileSync("src/new.ts", "export {}\\n")');
    expect([status.ok, log.ok, write.ok]).toEqual([true, true, true]);
    expect(log.output).toContain('first commit');
    expect(readFileSync(join(root, 'src/new.ts'), 'utf8')).toBe('export {}\n');
    expect((await run('git', ['status', '--short'])).output).toContain('?? src/');
    expect(readdirSync(root).filter((n) => n.startsWith('.stagecraft-quarantine-'))).toEqual([]);
  });
});

const alive = (pid: string) => {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/**
 * Sandboxes alive for a tag, counted on the host: bwrap processes with it whose parent is not one
 * (bwrap forks itself inside). Reading /proc is no snapshot, so a sandbox counted early in the pass
 * must still be alive at its end, or one that ended and the one that took its slot both count.
 */
function liveSandboxes(tagged: string): number {
  const bwraps = new Map<string, string>();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (!argv[0].endsWith('bwrap') || !argv.includes(tagged)) continue;
      bwraps.set(pid, /^\d+ \(.*\) \S+ (\d+)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1] ?? '');
    } catch {
      // Exited while being read.
    }
  }
  return [...bwraps].filter(([pid, ppid]) => !bwraps.has(ppid) && alive(pid)).length;
}

describe('sandbox limits', () => {
  attack(
    'filling /tmp and /dev/shm with 3 GB',
    async () => {
      const script = `import os
for target in ("/tmp/fill", "/dev/shm/fill"):
    written = 0
    try:
        with open(target, "wb") as f:
            chunk = b"0" * (1024 * 1024)
            while written < 3 * 1024:
                f.write(chunk)
                f.flush()
                written += 1
    except OSError as e:
        print(target, "stopped:", e.strerror)
    print(target, written, "MiB")
    os.remove(target)`;
      const result = await run('python3', ['-c', script], {}, 60_000);
      const written = [...result.output.matchAll(/(\d+) MiB/g)].map((m) => Number(m[1]));
      expect(written).toHaveLength(2);
      expect(result.output).toContain('No space left on device');
      const [tmp, shm] = written;
      return { escaped: tmp > DEFAULT_SANDBOX_OPTIONS.limits.tmpBytes / 1024 / 1024 || shm > 64, evidence: result.output };
    },
    60_000,
  );

  attack(
    '40 concurrent run_commands',
    async () => {
      const cap = 4;
      const options: SandboxOptions = { ...DEFAULT_SANDBOX_OPTIONS, concurrency: cap };
      const roots = Array.from({ length: 40 }, (_, i) => join(parent, `p${i}`));
      roots.forEach((r) => mkdirSync(r));
      let most = 0;
      let polling = true;
      const poll = (async () => {
        while (polling) {
          most = Math.max(most, liveSandboxes(`stagecraft-span-${tag}`));
          await sleep(10);
        }
      })();
      const script = `const s = Date.now(); setTimeout(() => require("fs").writeFileSync("span", JSON.stringify([s, Date.now()])), 300)`;
      const results = await Promise.all(
        roots.map((r) =>
          executeTool(
            'run_command',
            { command: 'node', args: ['-e', script, `stagecraft-span-${tag}`], timeoutMs: 60_000 },
            { ...context, root: r, sandbox: options },
          ),
        ),
      );
      polling = false;
      await poll;
      expect(results.filter((r) => r.ok)).toHaveLength(40);
      expect(results.filter((r) => r.output.includes('for a free command slot (counted in timeoutMs)')).length).toBeGreaterThan(0);
      // Inside: the most commands whose lifetimes overlap, from what each recorded.
      const spans = roots.map((r) => JSON.parse(readFileSync(join(r, 'span'), 'utf8')) as [number, number]);
      const overlapping = Math.max(...spans.map(([start]) => spans.filter(([s, e]) => s <= start && start < e).length));
      const evidence = `40 commands: at most ${overlapping} overlapped (recorded inside), ${most} sandboxes alive at once (counted on the host); cap ${cap}`;
      console.log(evidence);
      return { escaped: overlapping > cap || most > cap, evidence };
    },
    120_000,
  );

  attack('a queued call whose time runs out leaves the queue and never runs', async () => {
    const options: SandboxOptions = { ...DEFAULT_SANDBOX_OPTIONS, concurrency: 1 };
    const [first, second] = [join(parent, 'first'), join(parent, 'second')];
    [first, second].forEach((r) => mkdirSync(r));
    const long = run('node', ['-e', 'setTimeout(() => {}, 1500)'], { root: first, sandbox: options });
    await sleep(200);
    const queued = await run('node', ['-e', 'require("fs").writeFileSync("ran", "")'], { root: second, sandbox: options }, 300);
    expect(queued.output).toMatch(/^tool_error: COMMAND_TIMEOUT\nproblem: 'node' never started/);
    expect((await long).ok).toBe(true);
    // The slot freed by the first call goes to the next caller, not to the one that left.
    const next = await run('node', ['-e', 'console.log("next")'], { root: second, sandbox: options });
    expect(next.output).toContain('next');
    return { escaped: existsSync(join(second, 'ran')), evidence: queued.output };
  });

  it('runs the commands of one project one at a time', async () => {
    const script = `const s = Date.now(); setTimeout(() => require("fs").appendFileSync("spans", JSON.stringify([s, Date.now()]) + "\\n"), 200)`;
    const results = await Promise.all([1, 2, 3].map(() => node(script)));
    expect(results.every((r) => r.ok)).toBe(true);
    const spans = readFileSync(join(root, 'spans'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as [number, number]);
    spans.sort((a, b) => a[0] - b[0]);
    expect(spans).toHaveLength(3);
    for (let i = 1; i < spans.length; i += 1) expect(spans[i][0]).toBeGreaterThanOrEqual(spans[i - 1][1]);
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
