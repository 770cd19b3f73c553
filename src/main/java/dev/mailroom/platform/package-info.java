/**
 * The ground every part of Mailroom stands on: configuration ({@link dev.mailroom.platform.MailroomConfig}),
 * the clock, build identity, the metrics registry, the schema migration, and access to the broker
 * (queue lookup, queue statistics, consumer control), leases ({@code platform.lease}) and settings
 * ({@code platform.settings}).
 *
 * <p>May use: nothing of Mailroom's.
 */
package dev.mailroom.platform;
