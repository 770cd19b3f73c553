package dev.mailroom.redrive;

import dev.mailroom.platform.settings.DurationText;
import dev.mailroom.platform.settings.SettingsReader;
import java.time.Duration;

/**
 * The {@code mailroom.redrive.*} settings, read and checked at deployment against the same bounds a plan's own options
 * are held to ({@link RedriveRules#options}), so a default no request could ask for is refused at boot, not by the
 * first plan.
 *
 * @param defaults what a plan goes with when its request says nothing
 * @param maxLaps  a dead letter replayed this many times and failed each time is left to a person (edit or discard)
 */
public record RedriveSettings(RedriveRules.Defaults defaults, int maxLaps) {

    static final String PREFIX = "mailroom.redrive.";

    public static RedriveSettings read(SettingsReader s) {
        return new RedriveSettings(new RedriveRules.Defaults(
                s.integer(10, 0, RedriveRules.MAX_SAMPLE, PREFIX + "sample-size"),
                rate(s, "sample-rate-per-second", 1),
                rate(s, "rate-per-second", 2),
                s.find(PREFIX + "sample-timeout").map(v -> v.as(RedriveSettings::sampleTimeout,
                        "a duration above zero and at most 1h, such as 2m or PT2M")).orElse(Duration.ofMinutes(2))),
                s.integer(3, 1, 1_000, PREFIX + "max-laps"));
    }

    private static double rate(SettingsReader s, String key, double fallback) {
        return s.find(PREFIX + key).map(v -> v.as(t -> {
            double d = Double.parseDouble(t);
            if (!RedriveRules.validRate(d)) {
                throw new IllegalArgumentException("out of range");
            }
            return d;
        }, "a number above 0 and at most " + RedriveRules.MAX_RATE)).orElse(fallback);
    }

    private static Duration sampleTimeout(String text) {
        Duration d = DurationText.parse(text);
        if (!RedriveRules.validSampleTimeout(d)) {
            throw new IllegalArgumentException("out of range");
        }
        return d;
    }
}
