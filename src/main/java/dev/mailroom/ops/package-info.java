/**
 * Operating Mailroom: configuration, build identity, metrics, and the REST API (jobs, queues,
 * health, sandbox outbox) that operators and tools use. Adapters only: they translate and delegate.
 */
package dev.mailroom.ops;
