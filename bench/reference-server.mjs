// The reference: a raw node:http server that answers fixed bytes (the real server's answer to the
// scenario, captured once) with the same status and headers. Runs as a child of bench/run.mjs,
// so it never shares an event loop with the load generator.
//   parent → child: { answers: { GET: {status, headers, body (base64)}, POST: ..., DELETE: ... } }
//   child → parent: { port } once listening, { ready: true } after each answers message.
import { createServer } from 'node:http';

let answers = new Map();

const server = createServer((req, res) => {
  const answer = answers.get(req.method);
  if (!answer) {
    res.writeHead(405, { 'content-length': 0 });
    res.end();
    return;
  }
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
});
server.keepAliveTimeout = 5_000;

process.on('message', (message) => {
  answers = new Map(
    Object.entries(message.answers).map(([method, a]) => {
      const body = Buffer.from(a.body, 'base64');
      return [method, { status: a.status, headers: { ...a.headers, 'content-length': body.length }, body }];
    }),
  );
  process.send({ ready: true });
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
