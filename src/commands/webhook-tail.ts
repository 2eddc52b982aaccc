import { Command, InvalidArgumentError, Option } from 'commander';
import { isSandboxId } from '../auth/sandbox-id.js';
import { parseEventId, type LoggedEvent } from '../engine/change-log.js';
import { compilePatterns, parsePatternList } from '../engine/event-pattern.js';
import type { SignatureFormat } from '../engine/webhook-store.js';
import { openCommandDatabase, withDatabaseOptions, type DatabaseOptions } from './_database.js';
import { commandLog } from './_log.js';
import { exitWhenStdoutCloses } from './_stdout.js';

interface TailOptions extends DatabaseOptions {
  sandbox?: string;
  event: string[];
  json?: boolean;
  since?: string;
  forwardTo?: string;
  secret?: string;
  signature: SignatureFormat;
}

/** A forwarded event that gets no answer within this is reported as timed out. */
const forwardTimeoutMs = 10_000;

type Colors = typeof import('consola/utils').colors;

/**
 * The engine's `signatureFormats`, spelled here: the webhook store (and node:crypto with it) is
 * not loaded to build the command line. The type keeps the list whole and valid.
 */
const signatureFormats = Object.keys({ timestamped: 0, sha256: 0, standard: 0 } satisfies Record<SignatureFormat, 0>);

/** `mockapi webhook`: the parent of `tail`. */
export function makeWebhookCommand(): Command {
  return new Command('webhook').description('webhook tools').addCommand(makeWebhookTailCommand());
}

/**
 * `mockapi webhook tail`: follows the change log and the delivery attempts in the database file, so
 * it sees what a server in another process (or a CLI command) does, as it happens. With
 * `--forward-to` it signs and posts each event to a local receiver, like `stripe listen`.
 */
export function makeWebhookTailCommand(): Command {
  const command = new Command('tail')
    .description("print every event of every sandbox and each webhook delivery's outcome as they happen")
    .addOption(new Option('--sandbox <id>', 'only this sandbox (its svc_identity id)').argParser(parseSandbox))
    .addOption(new Option('--event <pattern>', 'only events matching it: post.created, posts.*, * (repeat or comma-separate)').argParser(collectPatterns).default([], 'every event'))
    .option('--json', 'one JSON object a line')
    .addOption(new Option('--since <event id>', 'first replay the events after this one ("all": everything the log keeps)').argParser(parseSince))
    .addOption(new Option('--forward-to <url>', 'sign and POST each event to this URL, printing each answer').argParser(parseUrl))
    .option('--secret <secret>', 'signing secret for --forward-to (default: a new one, printed at start)')
    .addOption(new Option('--signature <format>', 'signature format for --forward-to').choices([...signatureFormats]).default('timestamped'));
  withDatabaseOptions(command);
  return command.action(async (options: TailOptions) => {
    const { standardKey } = await import('../webhooks/signature.js');
    if (options.secret !== undefined && options.signature === 'standard' && !standardKey(options.secret)) {
      command.error('--secret must be whsec_<base64 key> for --signature standard', { exitCode: 2 });
    }
    // An event id counts in its sandbox's log (only ids of older servers name a place in the whole log).
    const since = options.since === undefined || options.since === 'all' ? undefined : parseEventId(options.since);
    if (since && 'eseq' in since && options.sandbox === undefined) command.error('--since <event id> needs --sandbox, the sandbox of that event', { exitCode: 2 });
    await tail(options);
  });
}

async function tail(options: TailOptions): Promise<void> {
  // Loaded on use: building the command line (`mockapi --help`) needs none of them.
  const [{ headersFor }, { deliveryBody, newDeliveryId }, { generateSecret }, { colors }, log] = await Promise.all([
    import('../webhooks/dispatcher.js'),
    import('../webhooks/delivery-body.js'),
    import('../webhooks/signature.js'),
    import('consola/utils'),
    commandLog('stderr'),
  ]);
  const { engine, config, close } = await openCommandDatabase(options, { mustExist: true });
  const matches = compilePatterns(options.event);
  const wanted = (sandbox: string, event: string) => (options.sandbox === undefined || sandbox === options.sandbox) && matches(event);
  const secret = options.secret ?? generateSecret();
  const out = (line: string) => process.stdout.write(`${line}\n`);
  exitWhenStdoutCloses();

  const sid = options.sandbox === undefined ? 0 : engine.sandboxes.sidOf(options.sandbox);
  // From the process's start, not from the first read: an event logged while the command was still
  // loading (a test writes right after spawning the tail) is shown too.
  const startedAt = Math.floor(performance.timeOrigin);
  let eventCursor = options.since === undefined ? engine.changes.lastBefore(startedAt) : options.since === 'all' ? 0 : engine.changes.locate(sid, options.since)!.after;
  let attemptCursor = engine.webhooks.lastAttempt();
  let forwarding = Promise.resolve();

  const printEvent = (event: LoggedEvent) => {
    if (options.json) out(JSON.stringify({ type: 'event', sandbox: event.sandbox, id: event.id, event: event.event, timestamp: event.timestamp, data: JSON.parse(event.data) }));
    else out(`${colors.dim(event.timestamp)} ${colors.cyan(event.sandbox)} ${colors.bold(event.event)} ${colors.dim(event.id)} ${summary(event.data)}`);
  };
  const forward = (event: LoggedEvent) => {
    const url = options.forwardTo!;
    // In order, one at a time: a receiver sees the events as they were logged.
    forwarding = forwarding.then(async () => {
      const delivery = newDeliveryId();
      const started = Date.now();
      let status: number | null = null;
      let error: string | null = null;
      try {
        const body = deliveryBody(delivery, event);
        const response = await fetch(url, {
          method: 'POST',
          headers: headersFor({ id: delivery, event: event.event, body, signature: options.signature, secret }),
          body,
          signal: AbortSignal.timeout(forwardTimeoutMs),
          redirect: 'manual',
        });
        status = response.status;
        await response.arrayBuffer().catch(() => undefined);
      } catch (caught) {
        error = (caught as Error).name === 'TimeoutError' ? `no answer within ${forwardTimeoutMs} ms` : describe(caught);
      }
      const ms = Date.now() - started;
      if (options.json) out(JSON.stringify({ type: 'forward', id: event.id, event: event.event, delivery, url, status_code: status, duration_ms: ms, error }));
      else out(`  ${colors.dim('->')} ${url} ${status === null ? colors.red(error ?? 'failed') : paintStatus(colors, status)} ${colors.dim(`(${ms} ms)`)}`);
    });
  };

  const tick = () => {
    try {
      for (;;) {
        const events = engine.changes.after(eventCursor, 500);
        for (const event of events) {
          eventCursor = event.n;
          if (!wanted(event.sandbox, event.event)) continue;
          printEvent(event);
          if (options.forwardTo) forward(event);
        }
        if (events.length < 500) break;
      }
      for (const attempt of engine.webhooks.attemptsAfter(attemptCursor)) {
        attemptCursor = attempt.n;
        if (!wanted(attempt.sandbox, attempt.event)) continue;
        // Read later than it happened: an attempt followed by another (or still pending) was one to retry.
        const outcome = attempt.attempt < attempt.made || attempt.status === 'pending' ? 'retrying' : attempt.status;
        if (options.json) {
          out(
            JSON.stringify({
              type: 'delivery',
              sandbox: attempt.sandbox,
              delivery: attempt.id,
              webhook: attempt.webhookId,
              event: attempt.event,
              url: attempt.url,
              attempt: attempt.attempt,
              at: new Date(attempt.at).toISOString(),
              status_code: attempt.statusCode,
              duration_ms: attempt.durationMs,
              error: attempt.error,
              status: outcome,
            }),
          );
        } else {
          const answer = attempt.statusCode === null ? colors.red(attempt.error ?? 'failed') : paintStatus(colors, attempt.statusCode);
          const state = outcome === 'succeeded' ? colors.green(outcome) : outcome === 'failed' ? colors.red(outcome) : colors.yellow(outcome);
          out(`  ${colors.dim('<-')} ${colors.cyan(attempt.sandbox)} ${attempt.event} ${colors.dim(attempt.id)} ${attempt.url} attempt ${attempt.attempt}: ${answer} ${colors.dim(`(${attempt.durationMs} ms)`)} ${state}`);
        }
      }
    } catch (error) {
      log.warn(`reading the log failed, trying again: ${(error as Error).message}`);
    }
  };

  const unwatch = engine.changes.watch(tick);
  // An interval keeps the process alive (the log's own poll timer does not) and catches what it might miss.
  const keepAlive = setInterval(tick, 1_000);
  if (options.forwardTo) log.info(`forwarding events to ${options.forwardTo}, signed (${options.signature}) with secret ${secret}`);
  log.info(`tailing ${config.db}${options.sandbox ? ` (sandbox ${options.sandbox})` : ''}; Ctrl-C to stop`);
  tick();

  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  unwatch();
  clearInterval(keepAlive);
  close();
  // Forwards in flight are dropped: Ctrl-C means now.
  process.exit(0);
}

/** A short look at the record: its id and title, name or username when it has them. */
function summary(data: string): string {
  try {
    const value = JSON.parse(data) as Record<string, unknown>;
    if (typeof value !== 'object' || value === null) return '';
    const label = value.title ?? value.name ?? value.username ?? value.snapshot;
    const id = value.id ?? value.sandbox;
    return [id !== undefined ? `#${String(id)}` : '', typeof label === 'string' ? JSON.stringify(label.length > 40 ? `${label.slice(0, 39)}…` : label) : '']
      .filter(Boolean)
      .join(' ');
  } catch {
    return '';
  }
}

function paintStatus(colors: Colors, status: number): string {
  return status >= 200 && status < 300 ? colors.green(String(status)) : status >= 500 ? colors.red(String(status)) : colors.yellow(String(status));
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ?? (error as Error).message ?? String(error);
}

function parseSandbox(value: string): string {
  if (!isSandboxId(value)) throw new InvalidArgumentError('Expected a sandbox id: 1-128 characters of A-Z a-z 0-9 _ -.');
  return value;
}

function collectPatterns(value: string, previous: string[]): string[] {
  const { patterns, invalid } = parsePatternList([value]);
  if (invalid !== undefined || !patterns.length) throw new InvalidArgumentError('Expected event patterns such as post.created, posts.* or *.');
  return [...previous, ...patterns];
}

function parseSince(value: string): string {
  if (value !== 'all' && parseEventId(value) === undefined) throw new InvalidArgumentError('Expected an event id (evt_...) or "all".');
  return value;
}

function parseUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value;
  } catch {
    // below
  }
  throw new InvalidArgumentError('Expected an http(s) URL.');
}
