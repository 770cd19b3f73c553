// Sends one Mailroom job over AMQP 1.0 (docs/producers.md, "Other languages"): the same JSON document a Java
// producer sends, as a string body (Artemis hands it to Mailroom as a JMS TextMessage), durable, with the
// idempotency key as the broker's duplicate-detection id. Prints the job's message_id once the broker has it.
//
//   node send-job.js [amqp://127.0.0.1:61616] [alice@example.com]
// Broker user: MAILROOM_AMQP_USER / MAILROOM_AMQP_PASSWORD (the embedded default's mailroom / mailroom).
const rhea = require('rhea');
const crypto = require('crypto');

const url = new URL(process.argv[2] || 'amqp://127.0.0.1:61616');
const to = process.argv[3] || 'alice@example.com';
const messageId = 'amqp-' + crypto.randomUUID();
const job = {
  schema_version: 1,
  message_id: messageId,
  idempotency_key: messageId,
  from: 'Mailroom <noreply@example.com>',
  to: [to],
  subject: 'Hello',
  text: 'Hi, this was sent over AMQP from Node.js.'
};

const connection = rhea.connect({
  host: url.hostname,
  port: Number(url.port || 5672),
  username: process.env.MAILROOM_AMQP_USER || 'mailroom',
  password: process.env.MAILROOM_AMQP_PASSWORD || 'mailroom',
  reconnect: false
});
// a port that does not speak AMQP (a broker with core only) answers nothing at all: give up rather than wait forever
const timer = setTimeout(() => fail('no answer from the broker in 30 s')(), 30000);
connection.on('connection_close', () => clearTimeout(timer));
const sender = connection.open_sender({ target: { address: 'mail.send' } });
sender.once('sendable', () => {
  sender.send({
    durable: true,
    body: JSON.stringify(job),
    application_properties: { _AMQ_DUPL_ID: job.idempotency_key }
  });
});
sender.on('accepted', () => {
  console.log(messageId);
  connection.close();
});
const fail = (what) => (context) => {
  const error = (context && (context.error || (context.connection && context.connection.error))) || what;
  console.error('not sent: ' + (error.description || error.message || error));
  process.exitCode = 1;
  clearTimeout(timer);
  connection.close();
  // close() waits for the broker's answer to the close; one that never answered will not answer that either
  setTimeout(() => process.exit(1), 1000).unref();
};
sender.on('rejected', fail('rejected by the broker'));
sender.on('released', fail('released by the broker'));
connection.on('connection_error', fail('connection refused'));
connection.on('disconnected', (context) => {
  if (process.exitCode === undefined && !context.connection.is_closed()) {
    fail('disconnected')(context);
  }
});
