package dev.mailroom.ops.jmx;

import java.util.function.Supplier;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/** The erasure MBean: a thin adapter onto {@link QueueOperations#erase}, called inside the deployment. */
public final class ErasuresBean implements ErasuresMBean {

    private final QueueOperations operations;
    private final QueueMBeans door;

    ErasuresBean(QueueOperations operations, QueueMBeans door) {
        this.operations = operations;
        this.door = door;
    }

    static ObjectName objectName() throws MalformedObjectNameException {
        return new ObjectName(QueueDeadLetters.DOMAIN + ":type=Erasures");
    }

    @Override
    public String erase(String address, String reason) {
        return call("erase", () -> operations.erase(address, reason));
    }

    @Override
    public String recent(int limit) {
        return call("recent", () -> operations.erasures(limit));
    }

    private <T> T call(String operation, Supplier<T> body) {
        return JmxErrors.inDeployment(door, operation, "erasures", body);
    }
}
