package dev.mailroom.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class HealthProbesTest {

    private static final String LEAK = "FATAL: password authentication failed for user \"mailroom\" at 10.1.2.3";

    @Test
    void whatIsDownIsNamedWithoutTheExceptionsText() {
        HealthProbes probes = probes(failingDataSource(), failingBroker());
        assertThat(probes.probe()).containsOnlyKeys("database", "broker");
        assertThat(probes.probe().get("database")).startsWith("DOWN: the database").doesNotContain("password")
                .doesNotContain("10.1.2.3");
        assertThat(probes.probe().get("broker")).startsWith("DOWN: the broker").contains("mail.send")
                .doesNotContain("10.1.2.3");
    }

    @Test
    void aBrokerWithFiguresIsUp() {
        assertThat(probes(failingDataSource(), answering(java.util.Optional.empty())).broker()).isEqualTo(HealthProbes.UP);
    }

    @Test
    void aBrokerWhoseStoreDiskIsFullIsDownAndNamesTheDisk() {
        BrokerQueues full = answering(java.util.Optional.of(
                new BrokerQueues.DiskFigures("primary", 0.97, 0.90, "/srv/primary/data/journal")));
        assertThat(probes(failingDataSource(), full).broker()).startsWith("DOWN: the disk of broker primary's store")
                .contains("/srv/primary/data/journal", "97%", "90%");
    }

    private static HealthProbes probes(DataSource ds, BrokerQueues broker) {
        HealthProbes probes = new HealthProbes();
        probes.dataSource = ds;
        probes.broker = broker;
        probes.config = new MailroomConfig() {
            @Override
            public List<String> queues() {
                return List.of("mail.send");
            }
        };
        return probes;
    }

    /** A broker with figures for every queue, and these of its disk. */
    private static BrokerQueues answering(java.util.Optional<BrokerQueues.DiskFigures> disk) {
        return new BrokerQueues() {
            @Override
            public QueueFigures figures(String queue) {
                return new QueueFigures(queue, 0, 0, 0, 1);
            }

            @Override
            public java.util.Optional<DiskFigures> disk() {
                return disk;
            }
        };
    }

    private static BrokerQueues failingBroker() {
        return new BrokerQueues() {
            @Override
            public QueueFigures figures(String queue) {
                throw new BrokerUnavailableException(LEAK, new RuntimeException(LEAK));
            }
        };
    }

    private static DataSource failingDataSource() {
        return (DataSource) Proxy.newProxyInstance(HealthProbesTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        throw new SQLException(LEAK);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

}
