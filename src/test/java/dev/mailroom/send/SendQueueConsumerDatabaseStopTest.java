package dev.mailroom.send;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.platform.DatabaseFailures;
import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link SendQueueConsumer#databaseStop}: which failed deliveries stop the lines for the database, and what they say. */
class SendQueueConsumerDatabaseStopTest {

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("a table file that cannot grow (the database answers reads)", new PersistenceException(
                        new SQLException("ERROR: could not extend file \"base/16384/16500\": No space left on device",
                                "53100")), Optional.of("delivery on mail.send: the database refuses writes: the disk of"
                        + " its data directory (table files) is full (SQLSTATE 53100)")),
                Arguments.of("a connection refused", new PersistenceException(new SQLException("refused", "08001")),
                        Optional.of("delivery on mail.send: jakarta.persistence.PersistenceException:"
                                + " java.sql.SQLException: refused")),
                Arguments.of("a unique constraint", new PersistenceException(new SQLException("duplicate", "23505")),
                        Optional.empty()),
                Arguments.of("a bug", new IllegalStateException("no"), Optional.empty()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void stopsTheLinesForTheDatabaseOnly(String name, RuntimeException e, Optional<String> stop) {
        assertThat(SendQueueConsumer.databaseStop("mail.send", e, DatabaseFailures.outOfSpace(e))).isEqualTo(stop);
    }
}
