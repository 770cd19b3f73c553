/**
 * Alerts on dead letters (docs/dead-letters.md): every dead-letter arrival, the oldest open one passing
 * an age limit, an entry close to retention expiry and a new unknown provider code become an
 * {@link dev.mailroom.alert.AlertEvent}; {@link dev.mailroom.alert.AlertRouting} decides
 * whether it pages or files a ticket and spots bursts; {@link dev.mailroom.alert.AlertGrouper}
 * turns a burst of 5,000 arrivals into one {@link dev.mailroom.alert.Alert} with a count; the
 * {@link dev.mailroom.alert.AlertDispatcher} delivers to every {@link dev.mailroom.alert.AlertSink}
 * (server log, Alertmanager-shaped webhook) with retries of its own per sink.
 *
 * <p>Occurrences are kept in the database until delivered ({@link dev.mailroom.alert.AlertOutbox},
 * table {@code alert_outbox}): the observers write a row (a dead letter's in its own transaction) and the
 * node holding the {@code alert-delivery} lease feeds the rows to a dispatcher of its own
 * ({@link dev.mailroom.alert.AlertOutboxDelivery}), so a restart loses none and several nodes deliver each
 * once. Writing a row is all the send path waits for: an alert receiver that is down or slow never holds up
 * a send. {@link dev.mailroom.alert.AlertService#raise} (a bounded in-memory queue) takes what cannot be
 * written while the database does not answer. Everything except {@link dev.mailroom.alert.AlertService} (the thin CDI adapter that ticks
 * the dispatcher on a managed scheduler) is plain Java with time passed in, so it is tested without a
 * container and without sleeping.
 *
 * <p>Why in-app alerting stays beside the Prometheus rules of {@code server-config/prometheus/rules} (which raise the
 * same names from the metrics, for a deployment that runs Prometheus and Alertmanager): the embedded default runs
 * neither, and its log and webhook are the only alerts it has; an alert about one occurrence carries what no metric
 * holds (the message id, the provider's code, the error types of a burst) and is raised the moment it happens, not
 * at the next scrape and evaluation; and the outbox delivers each alert of a dead letter exactly when the dead
 * letter exists, across restarts and nodes. Its grouping and retries are the minimum of that delivery; routing to
 * people is left to the receiver (Alertmanager takes the webhook as it takes its own).
 *
 * <p>May use: platform, provider, deadletter, reconcile, send, stopline (the events they fire).
 */
package dev.mailroom.alert;
