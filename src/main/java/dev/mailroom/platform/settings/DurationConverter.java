package dev.mailroom.platform.settings;

import jakarta.annotation.Priority;
import java.time.Duration;
import org.eclipse.microprofile.config.spi.Converter;

/**
 * Makes every {@code @ConfigProperty Duration} accept {@link DurationText}'s syntax ({@code 30s} as well as
 * {@code PT30S}); registered in {@code META-INF/services/org.eclipse.microprofile.config.spi.Converter}, above the
 * implementation's own ISO-only converter.
 */
@Priority(200)
public class DurationConverter implements Converter<Duration> {

    @Override
    public Duration convert(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        return DurationText.parse(value);
    }
}
