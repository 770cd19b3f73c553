package dev.mailroom.platform;

import java.util.List;
import java.util.Map;

/**
 * A server's delivery switch for this deployment's message-driven beans: stopped, an MDB takes no new message
 * and its queue keeps them; messages being handled finish. {@link ConsumerControl} decides which MDBs and when.
 */
public interface ConsumerSwitch {

    /** This deployment's MDBs (by name) per queue they consume; a queue missing has none, or none yet. */
    Map<String, List<String>> mdbsByQueue();

    /** Whether the MDB delivers messages now. */
    boolean deliveryActive(String mdb);

    /** Starts or stops delivery to the MDB. */
    void deliveryActive(String mdb, boolean active);
}
