package dev.mailroom.platform;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** JSON as Mailroom writes it everywhere (REST, JMX, records): snake_case names, ISO-8601 instants. */
public final class Json {

    private Json() {
    }

    /** A new mapper configured the house way; ObjectMapper is thread-safe once configured, so keep one. */
    public static ObjectMapper snakeCaseMapper() {
        return new ObjectMapper()
                .registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
    }
}
