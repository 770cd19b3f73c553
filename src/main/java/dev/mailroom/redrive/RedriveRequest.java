package dev.mailroom.redrive;

/**
 * What an operator asks for: {@code action} {@code replay} (default) or {@code discard}, a filter and the
 * run's options; null options take the configured defaults ({@code mailroom.redrive.*}). {@code reason}
 * says why (required for a discard).
 */
public record RedriveRequest(String action, RedriveFilter filter, Integer sampleSize, Double sampleRatePerSecond,
                             Double ratePerSecond, String sampleTimeout, String reason) { }
