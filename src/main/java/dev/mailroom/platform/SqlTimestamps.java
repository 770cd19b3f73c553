package dev.mailroom.platform;

import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;

/** A timestamp column read by a native query, as the driver hands it over (the type differs between H2, PostgreSQL and Hibernate versions). */
public final class SqlTimestamps {

    private SqlTimestamps() {
    }

    public static Instant instant(Object value) {
        if (value instanceof Instant i) {
            return i;
        }
        if (value instanceof OffsetDateTime o) {
            return o.toInstant();
        }
        if (value instanceof ZonedDateTime z) {
            return z.toInstant();
        }
        if (value instanceof Timestamp t) {
            return t.toInstant();
        }
        throw new IllegalStateException("not a timestamp: " + (value == null ? "null" : value.getClass().getName()));
    }
}
