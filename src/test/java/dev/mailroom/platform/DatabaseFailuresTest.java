package dev.mailroom.platform;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link DatabaseFailures#isConnectionFailure}: which exceptions of the send path mean "the database is away". */
class DatabaseFailuresTest {

    static Stream<Arguments> rows() {
        SQLException chained = new SQLException("batch failed", "42000");
        chained.setNextException(new SQLException("connection reset", "08006"));
        return Stream.of(
                Arguments.of("PostgreSQL connection refused (08001) under a PersistenceException", new PersistenceException(
                        "could not prepare", new SQLException("Connection to 127.0.0.1:5432 refused", "08001")), true),
                Arguments.of("connection lost mid-transaction (08006)", new SQLException("I/O error", "08006"), true),
                Arguments.of("transient connection exception", new SQLTransientConnectionException("timeout"), true),
                Arguments.of("non-transient connection exception", new SQLNonTransientConnectionException("gone"), true),
                Arguments.of("the pool could not hand out a connection", new IllegalStateException("wrap",
                        new RuntimeException("IJ000453: Unable to get managed connection for java:jboss/datasources/MailroomDS")), true),
                Arguments.of("a connection failure in the next-exception chain", chained, true),
                Arguments.of("a unique constraint is not an outage", new PersistenceException(
                        new SQLIntegrityConstraintViolationException("duplicate", "23505")), false),
                Arguments.of("a syntax error is not an outage", new SQLException("syntax", "42601"), false),
                Arguments.of("a bug is not an outage", new IllegalArgumentException("reserved header"), false),
                Arguments.of("no SQLState is not an outage", new SQLException("odd"), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void classifies(String name, Throwable t, boolean connection) {
        assertThat(DatabaseFailures.isConnectionFailure(t)).isEqualTo(connection);
    }
}
