package concur.jetty;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.VirtualThreadPool;

/**
 * The embedded Jetty server: a {@code QueuedThreadPool}, one
 * {@code ServerConnector} on {@code 127.0.0.1} with a 4096 backlog, the
 * plain-text error handler, and the handler of the chosen {@link Threads}.
 * Tests build one on port 0; {@link Main} builds one from the environment.
 */
public final class ConcurServer {

    /** How requests are run: the two implementations this code serves. */
    public enum Threads {
        /** java-jetty: platform pool threads, asynchronous waits ({@link AsyncHandler}). */
        PLATFORM,
        /** java-jetty-vthreads: one virtual thread per request, blocking waits ({@link BlockingHandler}). */
        VIRTUAL
    }

    /** SPEC §1: at least 4096 (the kernel caps it at net.core.somaxconn). */
    static final int ACCEPT_QUEUE_SIZE = 4096;

    /** spec/POLICIES.md §1: the pool's bound, where a waiting request holds a platform thread. */
    static final int MAX_THREADS = 16_384;

    /** spec/POLICIES.md §1: the most a pool thread's stack needs here (the JVM's default is 1 MiB). */
    static final long THREAD_STACK_BYTES = 256 * 1024;

    private final Server server;
    private final QueuedThreadPool pool;
    private final ServerConnector connector;
    private final Service service;
    private final Database database;

    /** A server without a database: the database routes answer 503 (SPEC §8.4). */
    public ConcurServer(Config config, Threads threads) {
        this(config, threads, Database.Settings.NONE);
    }

    public ConcurServer(Config config, Threads threads, Database.Settings db) {
        // spec/POLICIES.md §1: a thread-per-request pool grows on demand to
        // 16,384 threads of 256 KiB stacks (Jetty's default maximum is 200),
        // and Jetty's 60 s idle timeout shrinks it again; 8 threads at least, as Jetty keeps.
        pool = new QueuedThreadPool(MAX_THREADS, 8, 60_000, -1, null, null,
                task -> new Thread(null, task, "jetty", THREAD_STACK_BYTES));
        pool.setName("jetty");
        if (threads == Threads.VIRTUAL) {
            // The Jetty guide's shape: platform threads select and accept, a
            // VirtualThreadPool runs each request. Its default bound (200
            // concurrent tasks) would make it a pool of 200 again, so it is lifted.
            VirtualThreadPool virtual = new VirtualThreadPool();
            virtual.setName("jetty-vt");
            virtual.setMaxConcurrentTasks(0);
            pool.setVirtualThreadsExecutor(virtual);
        }
        server = new Server(pool);
        server.setErrorHandler(new PlainErrorHandler());
        server.setStopAtShutdown(true);
        server.setStopTimeout(2_000);

        HttpConfiguration http = new HttpConfiguration();
        connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(config.port());
        connector.setAcceptQueueSize(ACCEPT_QUEUE_SIZE);
        server.addConnector(connector);

        service = new Service(config);
        database = new Database(db);
        DbRoutes dbRoutes = new DbRoutes(database);
        Handler handler = threads == Threads.VIRTUAL ? new BlockingHandler(service, config, dbRoutes) : new AsyncHandler(service, config, dbRoutes);
        server.setHandler(handler);
    }

    public ConcurServer start() throws Exception {
        server.start();
        return this;
    }

    /** The port actually bound (the OS's choice when the config said 0). */
    public int port() {
        return connector.getLocalPort();
    }

    /** The most bcrypt hashes that were in progress at once. */
    public int hashesAtOnceMost() {
        return service.hashesAtOnceMost();
    }

    /** Platform threads the pool holds now (busy or idle). */
    public int poolThreads() {
        return pool.getThreads();
    }

    public boolean usesVirtualThreads() {
        return VirtualThreads.isUseVirtualThreads(pool);
    }

    public void stop() throws Exception {
        server.stop();
        database.close();
    }

    public void join() throws InterruptedException {
        server.join();
    }
}
