package dev.mailroom.platform;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.persistence.OptimisticLockException;
import java.sql.SQLException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DatabaseFailuresDeadlockTest {

    @ParameterizedTest
    @CsvSource({
            "40001, true",   // H2 "Deadlock detected", the standard serialization failure
            "40P01, true",   // PostgreSQL deadlock_detected
            "23505, false",  // a unique constraint: running again changes nothing
            "08006, false",  // a lost connection: the stop-the-line rule's business, not a retry
    })
    void aDeadlockVictimIsRecognisedThroughItsWrappers(String sqlState, boolean victim) {
        SQLException sql = new SQLException("x", sqlState);
        RuntimeException wrapped = new OptimisticLockException(new RuntimeException("hibernate", sql));
        assertThat(DatabaseFailures.isDeadlockVictim(wrapped)).isEqualTo(victim);
        assertThat(DatabaseFailures.isDeadlockVictim(new IllegalStateException("no SQL at all"))).isFalse();
    }
}
