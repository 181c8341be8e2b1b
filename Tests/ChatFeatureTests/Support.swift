import Clocks
import Dependencies
import Domain
import Foundation
import Repositories
import RepositoriesTesting
import Testing
