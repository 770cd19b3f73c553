/**
 * Which server Mailroom runs on, decided at run time ({@link dev.mailroom.platform.servers.ServerPlatforms}): the one
 * place that knows both implementations of {@link dev.mailroom.platform.ServerPlatform}.
 *
 * <p>May use: platform.
 */
package dev.mailroom.platform.servers;
