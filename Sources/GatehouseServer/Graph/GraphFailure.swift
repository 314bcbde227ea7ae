import GatehouseCore
import Foundation
import GatehouseProtocol

/// Lets handlers `throw` a Graph error instead of threading `Result`s through every call.
struct GraphFailure: Error {
    let error: GraphError
    init(_ error: GraphError) { self.error = error }
}
