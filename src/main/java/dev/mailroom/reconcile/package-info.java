/**
 * Reconciliation: provider webhooks close the loop after {@code sent_to_provider} (docs/delivery-events.md).
 *
 * <p>This first layer is the verification of incoming webhook calls, one pure
 * {@link dev.mailroom.reconcile.WebhookVerifier} per provider profile, built from MicroProfile Config by
 * {@link dev.mailroom.reconcile.WebhookProfiles}. A verifier sees the raw request (headers and body bytes)
 * and the current instant, and answers a {@link dev.mailroom.reconcile.Verdict}: accepted with the
 * provider's dedupe key, or refused with a machine reason. Only the JDK's {@code Mac}, {@code Signature}
 * and {@code CertificateFactory} are used: every scheme is a few lines over them, and a provider SDK per
 * profile would pull in HTTP clients and JSON stacks we already have.
 *
 * <p>Like every capability, this package never imports an adapter: the JAX-RS endpoint in {@code ops.api}
 * translates HTTP into a {@link dev.mailroom.reconcile.WebhookRequest} and a refusal into a 4xx.
 *
 * <p>May use: platform, job, suppression.
 */
package dev.mailroom.reconcile;
