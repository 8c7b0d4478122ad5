import { Context } from "effect"

/** Where new identifiers come from (ObjectId-shaped, time-ordered; sequential in model tests). */
export class Ids extends Context.Service<
  Ids,
  {
    readonly newId: () => string
  }
>()("keyspace/ports/Ids") {}
