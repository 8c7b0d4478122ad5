// First: V8 settings that must hold before the service allocates (runtimes/node/heap.ts).
import "./heap.ts"
import { main } from "./main.ts"

await main()
