/**
 * Alerts on dead letters (README "Dead letters"): every dead-letter arrival, the oldest open one passing
 * an age limit, an entry close to retention expiry and a new unknown provider code become an
 * {@link dev.mailroom.alert.AlertEvent}; {@link dev.mailroom.alert.AlertRouting} decides
 * whether it pages or files a ticket and spots bursts; {@link dev.mailroom.alert.AlertGrouper}
 * turns a burst of 5,000 arrivals into one {@link dev.mailroom.alert.Alert} with a count; the
 * {@link dev.mailroom.alert.AlertDispatcher} delivers to every {@link dev.mailroom.alert.AlertSink}
 * (server log, Alertmanager-shaped webhook) with retries of its own per sink.
 *
 * <p>The send path only ever calls {@link dev.mailroom.alert.AlertService#raise}: it puts the event
 * on a bounded in-memory queue and returns, so an alert receiver that is down or slow never holds up a
 * send. Everything except {@link dev.mailroom.alert.AlertService} (the thin CDI adapter that ticks
 * the dispatcher on a managed scheduler) is plain Java with time passed in, so it is tested without a
 * container and without sleeping.
 */
package dev.mailroom.alert;
