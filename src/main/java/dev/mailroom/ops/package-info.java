/**
 * Operating Mailroom: the adapters operators and tools use, each a sub-package that translates and
 * delegates to the capabilities: {@code api} (REST), {@code jmx}, {@code security} (the access filter
 * and its pure rules). Sub-packages never import each other.
 *
 * <p>May use: platform, job, provider, recoverability, deadletter, suppression, reconcile, redrive, stopline, send,
 * alert, erasure.
 */
package dev.mailroom.ops;
